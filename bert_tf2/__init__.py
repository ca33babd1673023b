"""bert_tf2: the internals of the BERT (TF2 / Keras 3) reproduction.

The original's users import `modeling`, `tokenization` and `optimization`
and run the original scripts; everything else lives here, under one name,
so that installing the project puts nothing generic into site-packages:

  bert_tf2.common              atomic files, input errors, script entry
  bert_tf2.runner              TPUEstimator replacement on tf.distribute
  bert_tf2.pretraining_data    create_pretraining_data's library
  bert_tf2.pretraining         run_pretraining's library
  bert_tf2.classifier          run_classifier's library
  bert_tf2.squad               run_squad's library
  bert_tf2.feature_extraction  extract_features' library
  bert_tf2.quickstart          the quick start's stage runner
  bert_tf2.scripts             the scripts' flag definitions and mains

The learners' experiments (position-embedding and attention analysis, the
classic questions, the docs' demo data builders) are not here: they live
beside the library in `bert_research`, which nothing here imports.

Importing this package imports nothing heavy.
"""
