"""Bag-of-words baseline: TF-IDF (word 1-2 grams) + logistic regression.

Reads the same train/dev files as `run_classifier.py --task_name=tsv` and
prints the dev accuracy, to put a fine-tuned BERT's number in context:

  python -m bert_tf2.demos.bow_baseline --data_dir=/tmp/movie_reviews \\
      --text_a_column=sentence --label_column=label

Needs scikit-learn (the project's `analysis` extra).
"""

from absl import app
from absl import flags

from bert_tf2.classifier.generic import GenericProcessor

flags.DEFINE_string("data_dir", None, "Directory with train.tsv and dev.tsv.")
flags.DEFINE_string("text_a_column", "1", "Text column (index or name).")
flags.DEFINE_string("label_column", "0", "Label column (index or name).")
flags.DEFINE_float("C", 4.0, "Inverse L2 regularisation strength.")


def bow_accuracy(train, dev, c=4.0):
  """Fits TF-IDF + logistic regression on `train`, returns dev accuracy.

  Args:
    train, dev: lists of (text, label).
    c: inverse regularisation strength of the logistic regression.
  """
  from sklearn.feature_extraction.text import TfidfVectorizer
  from sklearn.linear_model import LogisticRegression
  vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=1,
                               sublinear_tf=True, lowercase=True)
  x_train = vectorizer.fit_transform([t for t, _ in train])
  x_dev = vectorizer.transform([t for t, _ in dev])
  model = LogisticRegression(C=c, max_iter=2000)
  model.fit(x_train, [l for _, l in train])
  return float((model.predict(x_dev) == [l for _, l in dev]).mean())


def main(argv):
  del argv
  f = flags.FLAGS
  proc = GenericProcessor(f.data_dir, text_a_column=f.text_a_column,
                          label_column=f.label_column)
  train = [(e.text_a, e.label) for e in proc.get_train_examples(f.data_dir)]
  dev = [(e.text_a, e.label) for e in proc.get_dev_examples(f.data_dir)]
  acc = bow_accuracy(train, dev, f.C)
  print("bow_baseline train=%d dev=%d dev_accuracy = %.4f" % (
      len(train), len(dev), acc))


if __name__ == "__main__":
  flags.mark_flag_as_required("data_dir")
  app.run(main)
