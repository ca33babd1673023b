"""Golden run of the original extract_features.py (test-only).

Usage: python -m tests.golden.extract_features_golden \
           CONFIG.json VOCAB INPUT LAYERS MAX_SEQ LOWER CKPT_PREFIX OUT.jsonl

Builds the original BertModel in a compat.v1 graph. If CKPT_PREFIX exists it
is restored as the original model_fn does; otherwise the model is initialized
randomly (seeded) and SAVED to CKPT_PREFIX with tf.compat.v1 Saver (the
variables under their original names). Then it runs the original
read_examples / convert_examples_to_features and writes the JSON lines the
way the original's main() does.
"""

import collections
import json
import os
import sys

from tests.golden import original


def main(argv):
  (config_file, vocab_file, input_file, layers, max_seq, lower, ckpt,
   out_file) = argv
  modeling = original.load("modeling")
  ef = original.load("extract_features")
  tf = original.tf
  max_seq = int(max_seq)
  layer_indexes = [int(x) for x in layers.split(",")]
  bert_config = modeling.BertConfig.from_json_file(config_file)
  tokenizer = ef.tokenization.FullTokenizer(vocab_file=vocab_file,
                                            do_lower_case=lower == "1")
  examples = ef.read_examples(input_file)
  features = ef.convert_examples_to_features(examples, max_seq, tokenizer)

  tf.set_random_seed(1234)
  input_ids = tf.placeholder(tf.int32, [None, max_seq])
  input_mask = tf.placeholder(tf.int32, [None, max_seq])
  input_type_ids = tf.placeholder(tf.int32, [None, max_seq])
  model = modeling.BertModel(config=bert_config, is_training=False,
                             input_ids=input_ids, input_mask=input_mask,
                             token_type_ids=input_type_ids,
                             use_one_hot_embeddings=False)
  all_layers = model.get_all_encoder_layers()
  outputs = [all_layers[i] for i in layer_indexes]
  restore = os.path.exists(ckpt + ".index")
  if restore:  # As the original model_fn: init_from_checkpoint.
    assignment_map, _ = modeling.get_assignment_map_from_checkpoint(
        tf.trainable_variables(), ckpt)
    tf.train.init_from_checkpoint(ckpt, assignment_map)
  with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    if not restore:
      # Make biases and LayerNorm parameters non-trivial too.
      for var in tf.trainable_variables():
        if var.name.endswith(("bias:0", "beta:0", "gamma:0")):
          shape = var.shape.as_list()
          sess.run(var.assign(var + tf.random.normal(shape, stddev=0.1)))
      tf.train.Saver().save(sess, ckpt)
    values = sess.run(outputs, feed_dict={
        input_ids: [f.input_ids for f in features],
        input_mask: [f.input_mask for f in features],
        input_type_ids: [f.input_type_ids for f in features]})

  with open(out_file, "w", encoding="utf-8") as writer:
    for row, feature in enumerate(features):
      output_json = collections.OrderedDict()
      output_json["linex_index"] = feature.unique_id
      all_features = []
      for i, token in enumerate(feature.tokens):
        all_out = []
        for j, layer_index in enumerate(layer_indexes):
          layer_output = values[j][row]
          layer = collections.OrderedDict()
          layer["index"] = layer_index
          layer["values"] = [round(float(x), 6)
                             for x in layer_output[i:(i + 1)].flat]
          all_out.append(layer)
        entry = collections.OrderedDict()
        entry["token"] = token
        entry["layers"] = all_out
        all_features.append(entry)
      output_json["features"] = all_features
      writer.write(json.dumps(output_json) + "\n")


if __name__ == "__main__":
  main(sys.argv[1:])
