"""SQuAD's public Keras names (to join `bert_tf2.models`' flat list).

Importing this module registers the raw-string SQuAD classes with Keras,
so a saved `SquadTextModel` `.keras` file loads in a fresh process with no
`custom_objects`:

  import keras
  import bert_tf2.models_squad
  model = keras.saving.load_model("squad.keras")

  >>> from bert_tf2 import models_squad
  >>> m = models_squad
  >>> m.SquadTextModel.__name__, m.squad_text_model.__name__
  ('SquadTextModel', 'squad_text_model')
"""

# pylint: disable=unused-import,g-importing-member,g-bad-import-order
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad.text_model import SquadTextModel
from bert_tf2.squad.text_model import squad_text_model
