"""BERT pretraining (masked LM + next sentence prediction) on TF2: what
run_pretraining.py does (`run.run_pretraining`). See docs/pretraining.md.
"""
