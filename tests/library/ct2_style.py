"""A CTranslate2 script as its users write them, with only the import line changed (`import ctranslate2`
becomes the line below): SentencePiece tokens in, tokens out, beam_size, num_hypotheses and return_scores.
Usage: ct2_style.py MODEL_DIR < lines; prints 'best ||| score ||| second' per line."""
import nmt as ctranslate2
import sys

import sentencepiece as spm

model_dir = sys.argv[1]
sp = spm.SentencePieceProcessor(model_file=f"{model_dir}/spm.model")
translator = ctranslate2.Translator(model_dir, device="cpu", intra_threads=2)

lines = [line.rstrip("\n") for line in sys.stdin]
batch = [sp.encode(line, out_type=str) for line in lines]
results = translator.translate_batch(batch, beam_size=5, num_hypotheses=2, return_scores=True,
                                     max_batch_size=16)
for result in results:
    best = sp.decode(result.hypotheses[0])
    second = sp.decode(result[1]["tokens"])
    print(f"{best} ||| {result.scores[0]:.4f} ||| {second}")
