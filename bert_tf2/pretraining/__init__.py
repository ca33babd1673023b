"""BERT pretraining (masked LM + next sentence prediction) on TF2.

  input_pipeline.input_fn_builder  tf.data reader of create_pretraining_data
                                   records (the original input_fn)
  record_check                     clear errors for bad/truncated records
  dynamic_masking.DynamicMasker    --dynamic_masking
  model.PretrainingModel           BertModel + cls/predictions + cls/seq_relationship
  task.PretrainingTask             the runner.Task (loss, eval metrics)
  run.run_pretraining(FLAGS)       what run_pretraining.py does

See docs/pretraining.md.
"""
