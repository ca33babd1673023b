"""Bag-of-words baseline: TF-IDF (word 1-2 grams) + logistic regression.

Reads the same train/dev files as `run_classifier.py --task_name=tsv` and
prints the dev accuracy, to put a fine-tuned BERT's number in context:

  python -m bench.baselines.bow_baseline --data_dir=/tmp/movie_reviews \\
      --text_a_column=sentence --label_column=label

`--analyzer=char` counts character 1-2 grams instead of words (Chinese has
no spaces: a bag of characters and character bigrams); `--test` also
prints the accuracy on the (labelled) test file:

  python -m bench.baselines.bow_baseline --data_dir=/tmp/zh_sentiment \\
      --text_a_column=sentence --label_column=label --analyzer=char --test

Needs scikit-learn (the project's `analysis` extra).
"""

from absl import app
from absl import flags

from bert_tf2.classifier.generic import GenericProcessor

flags.DEFINE_string("data_dir", None, "Directory with train.tsv and dev.tsv.")
flags.DEFINE_string("text_a_column", "1", "Text column (index or name).")
flags.DEFINE_string("label_column", "0", "Label column (index or name).")
flags.DEFINE_float("C", 4.0, "Inverse L2 regularisation strength.")
flags.DEFINE_enum("analyzer", "word", ["word", "char"],
                  "Features: word 1-2 grams, or character 1-2 grams (for "
                  "text without spaces, e.g. Chinese).")
flags.DEFINE_bool("test", False, "Also report the accuracy on the test file "
                  "(which must then have labels).")


def bow_accuracy(train, dev, c=4.0, analyzer="word", test=None):
  """Fits TF-IDF + logistic regression on `train`, returns dev accuracy.

  Args:
    train, dev: lists of (text, label).
    c: inverse regularisation strength of the logistic regression.
    analyzer: "word" (word 1-2 grams) or "char" (character 1-2 grams,
      whitespace included as scikit-learn's "char" analyzer does).
    test: optional list of (text, label); then returns (dev, test) accuracy.
  """
  from sklearn.feature_extraction.text import TfidfVectorizer
  from sklearn.linear_model import LogisticRegression
  vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=1,
                               sublinear_tf=True, lowercase=True,
                               analyzer=analyzer)
  x_train = vectorizer.fit_transform([t for t, _ in train])
  model = LogisticRegression(C=c, max_iter=2000)
  model.fit(x_train, [l for _, l in train])

  def accuracy(rows):
    predicted = model.predict(vectorizer.transform([t for t, _ in rows]))
    return float((predicted == [l for _, l in rows]).mean())
  if test is None:
    return accuracy(dev)
  return accuracy(dev), accuracy(test)


def main(argv):
  del argv
  f = flags.FLAGS
  proc = GenericProcessor(f.data_dir, text_a_column=f.text_a_column,
                          label_column=f.label_column)
  train = [(e.text_a, e.label) for e in proc.get_train_examples(f.data_dir)]
  dev = [(e.text_a, e.label) for e in proc.get_dev_examples(f.data_dir)]
  if not f.test:
    acc = bow_accuracy(train, dev, f.C, f.analyzer)
    print("bow_baseline train=%d dev=%d dev_accuracy = %.4f" % (
        len(train), len(dev), acc))
    return
  test = [(e.text_a, e.label) for e in proc.get_test_examples(f.data_dir)]
  acc, test_acc = bow_accuracy(train, dev, f.C, f.analyzer, test)
  print("bow_baseline train=%d dev=%d test=%d dev_accuracy = %.4f "
        "test_accuracy = %.4f" % (len(train), len(dev), len(test), acc,
                                  test_acc))


if __name__ == "__main__":
  flags.mark_flag_as_required("data_dir")
  app.run(main)
