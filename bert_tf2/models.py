"""The public Keras namespace: every model, layer and preprocessor.

Importing this module registers every serializable class of the project
with Keras (package "bert_tf2"), so a saved `.keras` file of any of them
loads in a fresh process with no `custom_objects`:

  import keras
  import bert_tf2.models  # registers the classes (as `import keras_hub`)
  model = keras.saving.load_model("ner.keras")

Keras imports the modules named in a `.keras` file only for its own
packages (keras, keras_hub, ...); for any other package the classes must
be registered first, which this import does. Keep this a flat list of
imports (one name a line), the names users write:

  >>> from bert_tf2 import models
  >>> models.BertClassifier.__name__, models.text_model.__name__
  ('BertClassifier', 'text_model')
"""

# pylint: disable=unused-import,g-importing-member,g-bad-import-order
from modeling import BertConfig
from modeling import BertModel
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.common.preprocessor import TextModel
from bert_tf2.common.preprocessor import text_model
from bert_tf2.common.pretrained import load_bert_model
from bert_tf2.embedding.encoder import SentenceEncoder
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
