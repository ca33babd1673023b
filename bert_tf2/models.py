"""The public Keras namespace: every model, layer and preprocessor.

Importing this module registers every serializable class of the project
with Keras (package "bert_tf2"), so a saved `.keras` file of any of them
loads in a fresh process with no `custom_objects`:

  import keras
  import bert_tf2.models  # registers the classes (as `import keras_hub`)
  model = keras.saving.load_model("ner.keras")

Keras imports the modules named in a `.keras` file only for its own
packages (keras, keras_hub, ...); for any other package the classes must
be registered first, which this import does. This is the one
registration list: a flat list of imports (one name a line), the names
users write, then `TEXT_MODEL_BUILDERS`, which says how `text_model` builds
each task's raw-string model. Nothing below `bert_tf2.models` imports it,
so `bert_tf2.common` imports no task.

  >>> from bert_tf2 import models
  >>> models.BertClassifier.__name__, models.text_model.__name__
  ('BertClassifier', 'text_model')
  >>> models.builder_of(models.BertTokenClassifier).__module__
  'bert_tf2.ner.text_model'
  >>> models.builder_of(models.BertClassifier).__module__
  'bert_tf2.common.text_model'
"""

# pylint: disable=unused-import,g-importing-member,g-bad-import-order
from modeling import BertConfig
from modeling import BertModel
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.common.text_model import TextModel
from bert_tf2.common.pretrained import load_bert_model
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.embedding.model import BiEncoder
from bert_tf2.embedding.text_model import SentenceTextModel
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor
from bert_tf2.ner.crf import CRF
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.ner.preprocessor import NerPreprocessor
from bert_tf2.ner.text_model import TokenTextModel
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad.text_model import SquadTextModel
from bert_tf2.squad.text_model import squad_text_model
from bert_tf2.common import text_model as _generic
from bert_tf2.embedding import text_model as _embedding
from bert_tf2.multiple_choice import preprocessor as _multiple_choice
from bert_tf2.ner import text_model as _ner

# (task model class, builder of its raw-string model): `text_model(cls, ...)`
# calls the builder of the first class `cls` is a subclass of (NER before
# the classifier it extends), else the generic one (a `BertPreprocessor`
# in front of the task model). A builder is `build(cls, directory,
# max_seq_length=..., do_lower_case=..., **kwargs)`.
TEXT_MODEL_BUILDERS = (
    (BertTokenClassifier, _ner.build),
    (BertMultipleChoice, _multiple_choice.build),
    (SentenceEncoder, _embedding.build),
)


def builder_of(cls):
  """The function that builds `cls`'s raw-string model (see above)."""
  for task, build in TEXT_MODEL_BUILDERS:
    if issubclass(cls, task):
      return build
  return _generic.build


def text_model(cls, directory, max_seq_length=128, do_lower_case=None,
               **kwargs):
  """The raw-string Keras model of task model class `cls`, from a pretrained
  directory (original or Hugging Face; see `bert_tf2.common.pretrained`).

  E.g. `text_model(BertClassifier, "uncased_L-12_H-768_A-12", num_labels=2)`,
  `text_model(BertTokenClassifier, directory, labels=["O", "B-PER", ...])`.
  """
  return builder_of(cls)(cls, directory, max_seq_length=max_seq_length,
                         do_lower_case=do_lower_case, **kwargs)
