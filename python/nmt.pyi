"""Type stubs of the module nmt (python/nmt_module.cc): nmt's library with CTranslate2's Python names."""
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union, overload

_Source = Union[str, Sequence[str]]
# Glossary terms: {source: target forms ("Vertrag|Verträge" or a list)} or ["SOURCE=TARGET", ...].
_Terms = Union[Mapping[str, Union[str, Sequence[str]]], Sequence[str]]

class Error(RuntimeError):
    """Every failure of the library; code is "invalid-argument", "model" or "failure"."""
    code: str

class TranslationResult:
    """One input's translation, shaped as CTranslate2's TranslationResult."""
    hypotheses: List[Any]  # str per hypothesis for str input, List[str] tokens for token input
    scores: List[float]  # empty unless return_scores=True
    raw_scores: List[float]
    confidences: List[float]
    flags: List[List[str]]
    alignments: List[List[Tuple[int, int]]]
    word_scores: List[List[float]]
    detected_language: str
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> Dict[str, Any]: ...

class ScoringResult:
    """A target scored by forced decoding, as CTranslate2's ScoringResult."""
    tokens: List[str]
    log_probs: List[float]
    score: float
    normalized_score: float

class Translator:
    """A model loaded once; calls from several threads run at once, the GIL released."""
    def __init__(self, model: str, threads: int = 0, *, device: str = "cpu", intra_threads: int = 0,
                 **ignored: Any) -> None: ...
    @property
    def threads(self) -> int: ...
    def translate_batch(self, source: Sequence[_Source], target_prefix: Optional[Sequence[Optional[_Source]]] = None,
                        *, beam_size: Optional[int] = None, num_hypotheses: Optional[int] = None,
                        length_penalty: Optional[float] = None, max_decoding_length: Optional[int] = None,
                        max_length_a: Optional[float] = None, max_length_b: Optional[int] = None,
                        repetition_penalty: Optional[float] = None, no_repeat_ngram_size: Optional[int] = None,
                        sampling_topk: Optional[int] = None, sampling_topp: Optional[float] = None,
                        sampling_temperature: Optional[float] = None, seed: Optional[int] = None,
                        return_scores: bool = False, return_alternatives: bool = False,
                        return_attention: bool = False, return_alignment: Optional[bool] = None,
                        word_scores: Optional[bool] = None, max_batch_size: Optional[int] = None,
                        batch_type: Optional[str] = None, target_lang: Optional[str] = None,
                        source_lang: Optional[str] = None, split_sentences: Optional[bool] = None,
                        max_sentence_tokens: Optional[int] = None, min_confidence: Optional[float] = None,
                        on_low_confidence: Optional[str] = None,
                        shortlist: Optional[str] = None, glossary: Optional[Union[str, "os.PathLike[str]"]] = None,
                        terms: Optional[_Terms] = None) -> List[TranslationResult]: ...
    def translate_file(self, source_path: str, output_path: str, *, format: str = "auto", **options: Any) -> int: ...
    @overload
    def translate_document(self, data: bytes, format: str, **options: Any) -> bytes: ...
    @overload
    def translate_document(self, data: str, format: str, **options: Any) -> str: ...
    def score_batch(self, source: Sequence[_Source], target: Sequence[_Source], **options: Any) -> List[ScoringResult]: ...
    def info(self) -> Dict[str, Any]: ...
