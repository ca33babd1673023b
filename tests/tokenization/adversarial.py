"""Hand-picked and seeded-random hard inputs for tokenizer tests (test-only)."""

import random
import sys

HAND_PICKED = (
    u"UNwant\u00E9d,running",
    u" \tHeLLo!how  \n Are yoU?  ",
    u"H\u00E9llo",
    u"ah\u535A\u63A8zz",
    u"\u4e2d\u6587\u5b57 \u3400\u4dbf \U00020000\U0002a6df \uf900\ufaff",
    u"\u3053\u3093\u306b\u3061\u306f \ud55c\uad6d\uc5b4 \u30ab\u30bf\u30ab\u30ca",
    u"\u039f\u0394\u039f\u03a3 \u0391\u03a3. \u03a3 \u0391\u03a3'\u0391 \u03a3\u0391",
    u"\u0130stanbul I\u0307 \u1e9e stra\u00dfe \ufb01 \uff21\uff22\uff23",
    u"a\u200bb zero\u200dwidth \u200c\u200e\u200f\u2060\ufeffword",
    u"\U0001F600\U0001F44D\U0001F3FD \U0001F468\u200D\U0001F469\u200D\U0001F467 "
    u"\u2764\ufe0f \U0001F1FA\U0001F1F8",
    u"a\x00b\ufffdc \x0bd\x0ce\x1cf\x1fg\x7fh\x85i",
    u"x\u2028y\u2029z \u00a0\u1680\u2000\u200a\u202f\u205f\u3000w",
    u"caf\u00e9 cafe\u0301 na\u0308ive \u00c5ngstr\u00f6m \u1e9b\u0323",
    u"\u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u0928\u092e\u0938\u094d\u0924\u0947",
    u"a\u1fefb \u037e \u00b7 \u0387",
    u"$5.00 ^_^ `code` ~tilde~ @user #tag 100%",
    u"[unused0] [unused1]x [UNUSED2] [unused99] [unused123456] foo[unused3]",
    u"[CLS] [SEP] [MASK] [UNK] [PAD]",
    u"a" * 199 + u" " + u"b" * 200 + u" " + u"c" * 201,
    u"\u00e9" * 201 + u" " + u"\u4e00" * 300,
    u"x" * 5000,
    u"",
    u"   \t\n  ",
    u"\ud800 lone \udfff surrogates",
)


def random_texts(count, seed, max_len=40):
  """`count` random strings mixing ASCII, BMP, astral and special classes."""
  rng = random.Random(seed)
  specials = [0, 0x9, 0xA, 0xD, 0xB, 0x85, 0xA0, 0x200B, 0x200D, 0x2028,
              0xFEFF, 0xFFFD, 0x3000, 0x301, 0x308, 0x130, 0x3A3, 0x1E9E,
              0xFB01, 0x1FEF, 0x4E00, 0xF900, 0x20000, 0x1F600, 0x1F3FD]
  texts = []
  for _ in range(count):
    chars = []
    for _ in range(rng.randint(0, max_len)):
      kind = rng.random()
      if kind < 0.35:
        cp = rng.randint(0x20, 0x7E)
      elif kind < 0.45:
        cp = rng.choice(specials)
      elif kind < 0.55:
        cp = 0x20
      elif kind < 0.8:
        cp = rng.randint(0x80, 0x3000)
      elif kind < 0.9:
        cp = rng.randint(0x3000, 0xFFFF)
      else:
        cp = rng.randint(0x10000, sys.maxunicode)
      chars.append(chr(cp))
    texts.append(u"".join(chars))
  return texts


def random_bytes(count, seed, max_len=40):
  """`count` random byte strings (mostly invalid UTF-8)."""
  rng = random.Random(seed)
  return [bytes(rng.randint(0, 255) for _ in range(rng.randint(0, max_len)))
          for _ in range(count)]
