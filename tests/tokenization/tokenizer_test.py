"""FullTokenizer / BasicTokenizer / WordpieceTokenizer behaviour cases.

The original's documented cases plus CJK, accents, cased vs uncased,
control and zero-width characters, emoji and very long words. Each case
runs through both the fast (default) and the reference (cache=False) path.
"""

import pytest

import tokenization
from tests.tokenization.conftest import write_vocab


@pytest.fixture(params=[True, False], ids=["fast", "reference"])
def cache(request):
  return request.param


def test_full_tokenizer_original_case(small_vocab, cache):
  tok = tokenization.FullTokenizer(vocab_file=small_vocab, cache=cache)
  tokens = tok.tokenize(u"UNwant\u00E9d,running")
  assert tokens == ["un", "##want", "##ed", ",", "runn", "##ing"]
  assert tok.convert_tokens_to_ids(tokens) == [7, 4, 5, 10, 8, 9]
  assert tok.tokenize_to_ids(u"UNwant\u00E9d,running") == [7, 4, 5, 10, 8, 9]
  assert tok.convert_ids_to_tokens([7, 4, 5]) == ["un", "##want", "##ed"]
  assert tok.inv_vocab[0] == "[UNK]" and tok.vocab["lowest"] == 12


def test_chinese_is_split_per_character():
  basic = tokenization.BasicTokenizer()
  assert basic.tokenize(u"ah\u535A\u63A8zz") == [
      u"ah", u"\u535A", u"\u63A8", u"zz"]


def test_basic_lower():
  basic = tokenization.BasicTokenizer(do_lower_case=True)
  assert basic.tokenize(u" \tHeLLo!how  \n Are yoU?  ") == [
      "hello", "!", "how", "are", "you", "?"]
  assert basic.tokenize(u"H\u00E9llo") == ["hello"]


def test_basic_no_lower_keeps_case_and_accents():
  basic = tokenization.BasicTokenizer(do_lower_case=False)
  assert basic.tokenize(u" \tHeLLo!how  \n Are yoU?  ") == [
      "HeLLo", "!", "how", "Are", "yoU", "?"]
  assert basic.tokenize(u"H\u00E9llo") == [u"H\u00E9llo"]


def test_wordpiece_original_case():
  vocab = {t: i for i, t in enumerate(
      ["[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un",
       "runn", "##ing"])}
  wp = tokenization.WordpieceTokenizer(vocab=vocab)
  assert wp.tokenize("") == []
  assert wp.tokenize("unwanted running") == [
      "un", "##want", "##ed", "runn", "##ing"]
  assert wp.tokenize("unwantedX running") == ["[UNK]", "runn", "##ing"]


def test_character_classes():
  assert tokenization._is_whitespace(u" ")
  assert tokenization._is_whitespace(u"\t") and tokenization._is_whitespace(
      u"\r") and tokenization._is_whitespace(u"\n")
  assert tokenization._is_whitespace(u"\u00A0")
  assert not tokenization._is_whitespace(u"A")
  assert not tokenization._is_whitespace(u"-")
  assert tokenization._is_control(u"\u0005")
  assert tokenization._is_control(u"\u200b")  # Zero-width space is Cf.
  assert not tokenization._is_control(u"A") and not tokenization._is_control(
      u" ")
  assert not tokenization._is_control(u"\t") and not tokenization._is_control(
      u"\r")
  assert not tokenization._is_control(u"\U0001F4A9")
  for c in u"-$`.^~":
    assert tokenization._is_punctuation(c)
  assert not tokenization._is_punctuation(u"A")
  assert not tokenization._is_punctuation(u" ")


@pytest.fixture
def rich_vocab(tmp_path):
  tokens = ["[PAD]", "[unused0]", "[unused1]", "[UNK]", "[CLS]", "[SEP]",
            "[MASK]", "hello", "world", "cafe", "##s", "!", ",", "\u4e2d",
            "\u6587", "\u00e9", "\U0001F600", "a", "##b", "b", "[", "]",
            "unused", "##0", "##1", "x", "##x", "\u0391", "\u03b1",
            "\u03c3", "\u03c2", "\u03b1\u03c2", "\u03b1\u03c3", "I", "i",
            "##\u0307", "stra", "##\u00dfe", "\u00df", "\uff21"]
  return write_vocab(tmp_path / "rich.txt", tokens)


@pytest.mark.parametrize("text,lower,expected", [
    (u"Hello, world!", True, ["hello", ",", "world", "!"]),
    (u"Hello, world!", False, ["[UNK]", ",", "world", "!"]),
    (u"caf\u00e9s", True, ["cafe", "##s"]),          # accent stripped
    (u"caf\u00e9s", False, ["[UNK]"]),               # kept when cased
    (u"cafe\u0301s", True, ["cafe", "##s"]),         # combining accent
    (u"\u4e2d\u6587", False, ["\u4e2d", "\u6587"]),  # CJK split
    (u"hello\u4e2dworld", True, ["hello", "\u4e2d", "world"]),
    (u"hel\u200blo wor\u200dld", True, ["hello", "world"]),  # Cf dropped
    (u"hel\x00lo\ufffd \x07world", True, ["hello", "world"]),
    (u"hello\u3000world\u00a0!", True, ["hello", "world", "!"]),
    (u"\U0001F600 \U0001F600\U0001F600 !", True,  # emoji, no "##" emoji
     ["\U0001F600", "[UNK]", "!"]),
    (u"ab" * 100, True, ["[UNK]"]),                  # no "##a" piece
    (u"x" * 200, True, ["x"] + ["##x"] * 199),       # exactly 200: split
    (u"x" * 201, True, ["[UNK]"]),                   # 201 chars: [UNK]
    (u"\u0391\u03a3", True, [u"\u03b1\u03c2"]),      # final sigma
    (u"\u0391\u03a3\u0391", True, ["[UNK]"]),
    (u"\u0130", True, ["i"]),                        # I-dot: i + U+0307 -> i
    (u"\u0130", False, ["[UNK]"]),
    (u"STRA\u00dfE", True, ["stra", "##\u00dfe"]),   # no casefold of sharp s
    (u"\uff21", False, ["\uff21"]),                  # fullwidth A
    (u"\uff21", True, ["[UNK]"]),                    # lower is not NFKC
    (u"[unused1] x[unused0]", True,
     ["[", "unused", "##1", "]", "x", "[", "unused", "##0", "]"]),
])
def test_cases(rich_vocab, cache, text, lower, expected):
  tok = tokenization.FullTokenizer(rich_vocab, do_lower_case=lower,
                                   preserve_unused_tokens=False, cache=cache)
  assert tok.tokenize(text) == expected


def test_preserve_unused_tokens(rich_vocab, cache):
  tok = tokenization.FullTokenizer(rich_vocab, preserve_unused_tokens=True,
                                   cache=cache)
  assert tok.tokenize(u"[unused1] x[unused0] [unused7] [UNUSED0]") == [
      "[unused1]", "x", "[", "unused", "##0", "]", "[", "[UNK]", "]", "[", "unused", "##0", "]"]


def test_bytes_input_is_utf8_with_bad_bytes_dropped(rich_vocab, cache):
  tok = tokenization.FullTokenizer(rich_vocab, cache=cache)
  assert tok.tokenize(b"hello \xff\xfeworld caf\xc3\xa9") == [
      "hello", "world", "cafe"]


def test_non_string_input_is_a_clear_error(rich_vocab, cache):
  tok = tokenization.FullTokenizer(rich_vocab, cache=cache)
  with pytest.raises(ValueError, match="Unsupported string type"):
    tok.tokenize(123)


def test_unknown_token_conversion_is_a_key_error(rich_vocab):
  tok = tokenization.FullTokenizer(rich_vocab)
  with pytest.raises(KeyError, match="'nope' is not in the vocabulary"):
    tok.convert_tokens_to_ids(["hello", "nope"])
  with pytest.raises(tokenization.UnknownTokenError):
    tok.convert_ids_to_tokens([10 ** 6])


def test_cache_is_bounded(rich_vocab):
  tok = tokenization.FullTokenizer(rich_vocab, max_cache_size=10)
  for i in range(100):
    tok.tokenize(u"word%d hello" % i)
    assert tok._fast.cache_size() <= 10  # pylint: disable=protected-access
  assert tok.tokenize(u"hello world") == ["hello", "world"]
  with pytest.raises(ValueError, match="max_cache_size"):
    tokenization.FullTokenizer(rich_vocab, max_cache_size=0)


def test_validate_case_matches_checkpoint():
  validate = tokenization.validate_case_matches_checkpoint
  validate(True, "/x/uncased_L-12_H-768_A-12/bert_model.ckpt")
  validate(False, "/x/cased_L-12_H-768_A-12/bert_model.ckpt")
  validate(False, "/x/my_model/bert_model.ckpt")
  validate(False, None)
  with pytest.raises(ValueError, match="--do_lower_case=False"):
    validate(False, "/x/uncased_L-12_H-768_A-12/bert_model.ckpt")
  with pytest.raises(ValueError, match="--do_lower_case=True"):
    validate(True, "gs://b/multi_cased_L-12_H-768_A-12/bert_model.ckpt")


def test_original_helpers():
  assert tokenization.convert_to_unicode(b"a\xc3\xa9") == u"a\u00e9"
  assert tokenization.printable_text(b"x") == "x"
  assert tokenization.whitespace_tokenize(u"  a \t b\n") == ["a", "b"]
  assert tokenization.whitespace_tokenize(u"   ") == []
  assert tokenization.convert_tokens_to_ids({"a": 3}, ["a", "a"]) == [3, 3]


def test_tokenizer_pickles_for_worker_processes(rich_vocab, cache):
  import pickle  # pylint: disable=g-import-not-at-top
  tok = tokenization.FullTokenizer(rich_vocab, cache=cache)
  assert tok.tokenize(u"hello caf\u00e9s") == ["hello", "cafe", "##s"]
  copy = pickle.loads(pickle.dumps(tok))
  assert copy.tokenize(u"hello caf\u00e9s world!") == [
      "hello", "cafe", "##s", "world", "!"]
  assert copy.vocab == tok.vocab
