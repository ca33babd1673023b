"""SQuAD 1.1 / 2.0 question answering (run_squad.py, evaluate_squad.py).

  examples:    read_squad_examples, SquadExample (the original's reader)
  features:    convert_examples_to_features, InputFeatures (sliding windows,
               max-context flags, answer positions)
  records:     FeatureWriter, input_fn_builder (train.tf_record/eval.tf_record)
  model:       SquadModel (BERT + cls/squad span head; its loss, metrics
               and outputs drive run_squad.py through runner.ModelTask)
  postprocess: write_predictions, get_final_text, RawResult (n-best decoding)
  evaluate:    exact match / F1 (v1.1 and v2.0 definitions)
  job:         SquadJob (run_squad.py on the fine-tuning driver: records,
               EM/F1 during training, prediction files, export); run
               (the whole of run_squad.py; settings:
               flags.default_options)

See docs/squad.md.
"""

from bert_tf2.squad.examples import read_squad_examples
from bert_tf2.squad.examples import SquadExample
from bert_tf2.squad.features import convert_examples_to_features
from bert_tf2.squad.features import InputFeatures
from bert_tf2.squad.postprocess import get_final_text
from bert_tf2.squad.postprocess import RawResult
from bert_tf2.squad.postprocess import write_predictions
