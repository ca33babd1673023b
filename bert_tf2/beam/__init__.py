"""Apache Beam pipelines (the optional `beam` extra: pip install -e ".[beam]"):
create_pretraining_data's sharded mode and batch prediction.

Only this package imports apache_beam, and only in the modules that need it.
See docs/pretraining_data.md ("Beam pipeline") and docs/prediction.md.
"""
