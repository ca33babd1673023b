"""SQuAD 1.1 / 2.0 question answering (run_squad.py, evaluate_squad.py).

See docs/squad.md.
"""

from bert_tf2.squad.examples import read_squad_examples
from bert_tf2.squad.examples import SquadExample
from bert_tf2.squad.features import convert_examples_to_features
from bert_tf2.squad.features import InputFeatures
from bert_tf2.squad.postprocess import get_final_text
from bert_tf2.squad.postprocess import RawResult
from bert_tf2.squad.postprocess import write_predictions
