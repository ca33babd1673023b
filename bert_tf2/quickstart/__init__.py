"""The quick start's library: its stage runner (`stages`).

bert_tf2.scripts.quickstart (`python quickstart.py`, `bert-quickstart`,
README's quick start) runs the pipeline's scripts as stages, two tracks side
by side, through `bert_tf2.quickstart.stages`.
"""
