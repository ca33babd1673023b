#!/bin/bash
# Reproduces docs/ner.md's People's Daily table: data prep, the CRF
# baseline, two small BERTs pretrained on the corpus (character masking and
# whole-word masking from the corpus's own segmentation), and run_ner.py
# fine-tuning from each and from random initialisation.
#   bash bench/ner_peoples_daily.sh [OUT_DIR] [STEP]   (STEP: all, data, crf,
#   pretrain_chars, pretrain_wwm, ner_random, ner_chars, ner_wwm)
# Each step appends its wall and CPU seconds to OUT_DIR/logs/times.txt.
set -euo pipefail
D=${1:-output/pd}
STEP=${2:-all}
PY=${PYTHON:-python}
export PYTHONPATH=${PYTHONPATH:-$PWD}
mkdir -p "$D/logs"
PRETRAIN_STEPS=${PRETRAIN_STEPS:-1500}
PRETRAIN_WARMUP=${PRETRAIN_WARMUP:-300}
NER_EPOCHS=${NER_EPOCHS:-2}
TAG=${TAG:-}  # suffix of run directories and logs, e.g. TAG=_2k

timed() {  # timed NAME command...: runs it, logs to $D/logs/NAME.log
  local name=$1; shift
  local before; before=$(uptime)
  /usr/bin/time -o "$D/logs/$name.time" -f "%e %U %S" \
    "$@" > "$D/logs/$name.log" 2>&1
  read -r wall user sys < "$D/logs/$name.time"
  echo "$name wall $wall s, cpu (user+sys) $(echo "$user + $sys" | bc) s;" \
    "uptime before: ${before#*load}; after: $(uptime | sed 's/.*load//')" \
    | tee -a "$D/logs/times.txt"
}

data() {
  timed prep $PY -m bert_tf2.demos.peoples_daily --output_dir="$D"
  cat > "$D/bert_config.json" <<JSON
{"vocab_size": $(wc -l < "$D/vocab.txt"), "hidden_size": 128,
 "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512,
 "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 64,
 "type_vocab_size": 2, "initializer_range": 0.02}
JSON
  local common="--vocab_file=$D/vocab.txt --max_seq_length=64 \
    --max_predictions_per_seq=10 --masked_lm_prob=0.15 --dupe_factor=2 \
    --random_seed=12345"
  timed data_chars $PY create_pretraining_data.py \
    --input_file="$D/pretrain_chars.txt" --output_file="$D/chars.tfrecord" \
    $common
  timed data_wwm $PY create_pretraining_data.py \
    --input_file="$D/pretrain_chars.txt" \
    --segmented_file="$D/pretrain_words.txt" --word_boundaries=spaces \
    --output_file="$D/wwm.tfrecord" $common
}

pretrain() {  # pretrain chars|wwm
  timed pretrain_$1$TAG $PY run_pretraining.py \
    --input_file="$D/$1.tfrecord" --output_dir="$D/pretrain_$1$TAG" \
    --do_train=true \
    --bert_config_file="$D/bert_config.json" --train_batch_size=64 \
    --max_seq_length=64 --max_predictions_per_seq=10 \
    --num_train_steps=$PRETRAIN_STEPS --num_warmup_steps=$PRETRAIN_WARMUP \
    --learning_rate=1e-3 --iterations_per_loop=100 \
    --save_checkpoints_steps=500 --keep_checkpoint_max=10
}

ner() {  # ner random|chars|wwm
  local init=""
  if [ "$1" != random ]; then
    init="--init_checkpoint=$D/pretrain_$1$TAG"
  fi
  timed ner_$1$TAG $PY run_ner.py --data_dir="$D" --vocab_file="$D/vocab.txt" \
    --bert_config_file="$D/bert_config.json" $init \
    --output_dir="$D/ner_$1$TAG" --do_train=true --do_eval=true \
    --do_predict=true --max_seq_length=64 --doc_stride=48 \
    --train_batch_size=32 --eval_batch_size=64 --predict_batch_size=64 \
    --learning_rate=5e-4 --num_train_epochs=$NER_EPOCHS \
    --iterations_per_loop=100 --save_checkpoints_steps=100000
}

case $STEP in
  data) data ;;
  crf) timed crf $PY -m bert_tf2.demos.crf_baseline --data_dir="$D" \
         --output_dir="$D/crf" ;;
  pretrain_chars) pretrain chars ;;
  pretrain_wwm) pretrain wwm ;;
  ner_random) ner random ;;
  ner_chars) ner chars ;;
  ner_wwm) ner wwm ;;
  all) data; timed crf $PY -m bert_tf2.demos.crf_baseline --data_dir="$D" \
         --output_dir="$D/crf"
       pretrain chars; pretrain wwm; ner random; ner chars; ner wwm
       for r in random chars wwm; do
         echo "$r $(grep '^test_f1' "$D/ner_$r$TAG/test_results.txt")"
       done ;;
  *) echo "unknown step $STEP" >&2; exit 1 ;;
esac
