"""bert_config.json against --init_checkpoint (issue 46): every size key a
checkpoint fixes is compared from its index alone, one line naming the key,
the config's value and the checkpoint's; a config that lacks
num_hidden_layers (12 by default) and a 2-layer checkpoint, or a config of
fewer layers than the checkpoint, are refused (they used to train random
layers, or drop trained ones, with only a warning)."""

import json

import pytest

import modeling
from modeling import checkpoint
from tests.modeling import helpers
from tokenization.errors import InputError


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
  """A 2-layer checkpoint of `helpers.tiny_config(num_hidden_layers=2)`."""
  model = modeling.BertModel(helpers.tiny_config(num_hidden_layers=2))
  return modeling.write_checkpoint(
      modeling.original_variable_names(model),
      str(tmp_path_factory.mktemp("ckpt") / "bert_model.ckpt"))


def test_sizes_read_from_the_index(prefix):
  shapes = checkpoint.open_checkpoint(prefix)[1].get_variable_to_shape_map()
  assert modeling.checkpoint_sizes(shapes) == {
      "vocab_size": 97, "hidden_size": 36, "type_vocab_size": 3,
      "max_position_embeddings": 24, "intermediate_size": 50,
      "num_hidden_layers": 2}


@pytest.mark.parametrize("key,value,have", [
    ("num_hidden_layers", 3, 2),   # more layers than the checkpoint
    ("num_hidden_layers", 1, 2),   # fewer: the checkpoint's would be dropped
    ("hidden_size", 48, 36),
    ("intermediate_size", 60, 50),
    ("vocab_size", 98, 97),
    ("max_position_embeddings", 32, 24),
    ("type_vocab_size", 2, 3),
])
def test_each_contradicted_key_is_named(prefix, key, value, have):
  config = helpers.tiny_config(**{"num_hidden_layers": 2, key: value})
  with pytest.raises(InputError) as raised:
    modeling.check_config_matches_checkpoint(config, prefix,
                                             config_file="my_config.json")
  message = str(raised.value)
  assert "\n" not in message
  assert message.startswith("--init_checkpoint=%s: my_config.json says "
                            % prefix)
  assert "%s=%d but the checkpoint has %d" % (key, value, have) in message
  assert message.count("but the checkpoint has") == 1


def test_a_config_without_num_hidden_layers_is_refused(prefix, tmp_path):
  values = helpers.tiny_config(num_hidden_layers=2).to_dict()
  del values["num_hidden_layers"]
  path = str(tmp_path / "bert_config.json")
  with open(path, "w") as f:
    json.dump(values, f)
  config = modeling.BertConfig.from_json_file(path)  # 12, the default.
  with pytest.raises(InputError,
                     match="num_hidden_layers=12 but the checkpoint has 2"):
    modeling.check_config_matches_checkpoint(config, prefix,
                                             config_file=path)


def test_the_matching_config_passes(prefix):
  modeling.check_config_matches_checkpoint(
      helpers.tiny_config(num_hidden_layers=2), prefix)
