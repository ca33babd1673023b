"""Apache Beam pipelines (the optional `beam` extra: pip install -e ".[beam]").

  pretraining_data  create_pretraining_data as a Beam pipeline: the same
                    shards, shard function and per-shard seeds as
                    `--num_workers N` mode, so the same examples.
  pretraining_script  the script's flags run as that pipeline (--runner).
  corpus            reading the corpus through Beam's filesystems and
                    cutting it into those shards.
  records_sink      TFRecord files written a shard at a time (temp files,
                    then renamed by Beam).
  inference         a RunInference model handler for the tasks' raw-string
                    SavedModels.
  answers           a signature's output Tensors -> one JSON-able dict per
                    input (no Beam needed).
  predict           `python -m bert_tf2.beam.predict`: text lines or JSONL
                    in, JSONL answers out.
  argv              a script's command line split into its absl flags and
                    Beam's pipeline options (no Beam needed).

Only this package imports apache_beam, and only in the modules that need it;
the rest of the library never does. See docs/pretraining_data.md ("Beam
pipeline") and docs/prediction.md.
"""
