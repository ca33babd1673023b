"""`python -m bert_tf2.analysis.questions NAME ...` (see the package)."""

from bert_tf2.analysis.questions import cli

if __name__ == "__main__":
  cli.main()
