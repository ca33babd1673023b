"""BERT pretraining (masked LM + next sentence prediction) on TF2.

  input_pipeline.input_fn_builder  tf.data reader of create_pretraining_data
                                   records (the original input_fn)
  record_check                     clear errors for bad/truncated records
  dynamic_masking.DynamicMasker    --dynamic_masking
  model.PretrainingModel           BertModel + cls/predictions + cls/seq_relationship,
                                   its loss, eval metrics and outputs
                                   (the runner's task: runner.ModelTask)
  run.run_pretraining(FLAGS)       what run_pretraining.py does

See docs/pretraining.md.
"""
