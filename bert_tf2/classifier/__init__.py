"""Sentence (pair) classification: what `run_classifier.py` is built from.

Modules:
  processors    InputExample, DataProcessor, the original's cola/mnli/mrpc/xnli
  glue          sst-2, qnli, qqp, rte, wnli, sts-b (regression)
  generic       GenericProcessor: your own TSV/CSV files, columns from flags
  registry      --task_name -> processor
  reader        delimited files with errors naming file and line
  features      convert_single_example, TFRecords, input_fn (original names)
  long_text     --long_text=sliding_window
  model, task   BertClassifier and the runner Task (loss, metrics)
  export        SavedModel with raw-string and ids signatures
  pipeline      run(options): the whole script

The movie-review data builder and the bag-of-words baseline of
docs/classifier.md are demos: bert_research.demos.

See docs/classifier.md.
"""
