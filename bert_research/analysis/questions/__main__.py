"""`python -m bert_research.analysis.questions NAME ...` (see the package)."""

from bert_research.analysis.questions import cli

if __name__ == "__main__":
  cli.main()
