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
  bert_tf2.analysis            position-embedding and attention analysis
  bert_tf2.demos               quick start stages, demo data builders, baselines
  bert_tf2.scripts             the scripts' flag definitions and mains

Importing this package imports nothing heavy.
"""
