"""bench.squad_bbc: SQuAD-format cloze questions from news articles."""

from bench import squad_bbc

SENTENCES = [
    "Sony said its PlayStation Portable sold 500,000 units in Japan.",
    "The firm expects Nintendo to reply in March.",
    "Analysts at Merrill Lynch said Sony had a strong lead.",
    "The new console goes on sale in Europe later.",
]


def test_questions_are_spans_of_the_context_removed_from_the_question():
  context, qas = squad_bbc.questions("a1", "Sony console beats Nintendo",
                                     SENTENCES)
  assert context.startswith(SENTENCES[0])
  assert qas and len({q["id"] for q in qas}) == len(qas)
  for qa in qas:
    answer = qa["answers"][0]
    start = answer["answer_start"]
    # The answer is the context's text at answer_start, and the question
    # says "what" where the answer was.
    assert context[start:start + len(answer["text"])] == answer["text"]
    assert "what" in qa["question"].split()
  questions = {q["question"]: q["answers"][0]["text"] for q in qas}
  assert questions["what console beats Nintendo"] == "Sony"
  assert questions["Sony console beats what"] == "Nintendo"


def test_context_is_cut_at_its_word_budget(monkeypatch):
  monkeypatch.setattr(squad_bbc, "CONTEXT_WORDS", 12)
  context, qas = squad_bbc.questions("a2", "Sony console beats Nintendo",
                                     SENTENCES)
  # The first sentence (10 words) only; the second becomes a question
  # source, its "Nintendo" is not in the context so it asks nothing.
  assert context == SENTENCES[0]
  assert all(q["answers"][0]["text"] in context for q in qas)
  assert not any("Merrill" in q["answers"][0]["text"] for q in qas)


def test_candidates_drop_function_words_and_keep_numbers():
  assert squad_bbc.candidates("The Bank of England kept rates at 4.75%.") == [
      "Bank of England", "4.75%"]
  assert squad_bbc.candidates("But it fell.") == []
