"""Bad-input cases of the flags of the functions written in Python (pydevtensor._args.flag):
a non-bool is refused by name, as PyTorch's, not read by its truth."""
from bad_input_cases import C

FLAGS_CASES = [
    C("argsort-descending-str", 'pdt.argsort(t, 1, "abc")', "TypeError",
      r"argsort\(\): argument 'descending' must be bool, not str"),
    C("sort-stable-str", 'pdt.sort(t, stable="yes")', "TypeError",
      r"sort\(\): argument 'stable' must be bool, not str"),
    C("topk-largest-int", "t.topk(1, largest=0)", "TypeError",
      r"topk\(\): argument 'largest' must be bool, not int"),
    C("fill_diagonal_-wrap-str", 't.clone().fill_diagonal_(1.0, wrap="x")', "TypeError",
      r"fill_diagonal_\(\): argument 'wrap' must be bool, not str"),
    C("unique-sorted-none", "pdt.unique(t, sorted=None)", "TypeError",
      r"unique\(\): argument 'sorted' must be bool, not NoneType"),
    C("unique_consecutive-counts-int", "pdt.unique_consecutive(t, return_counts=1)",
      "TypeError", r"unique_consecutive\(\): argument 'return_counts' must be bool, not int"),
    C("median-keepdim-str", 'pdt.median(t, 0, keepdim="no")', "TypeError",
      r"median\(\): argument 'keepdim' must be bool, not str"),
    C("quantile-keepdim-int", "pdt.quantile(t, 0.5, 0, keepdim=1)", "TypeError",
      r"quantile\(\): argument 'keepdim' must be bool, not int"),
    C("logsumexp-keepdim-str", 'pdt.logsumexp(t, 0, "no")', "TypeError",
      r"logsumexp\(\): argument 'keepdim' must be bool, not str"),
    C("searchsorted-right-str", 'pdt.searchsorted(t[0], t[1], right="x")', "TypeError",
      r"searchsorted\(\): argument 'right' must be bool, not str"),
    C("isin-invert-int", "pdt.isin(t, t, invert=1)", "TypeError",
      r"isin\(\): argument 'invert' must be bool, not int"),
    C("isclose-equal_nan-str", 'pdt.isclose(t, t, equal_nan="x")', "TypeError",
      r"isclose\(\): argument 'equal_nan' must be bool, not str"),
    C("histogram-density-int", "pdt.histogram(t, 3, density=1)", "TypeError",
      r"histogram\(\): argument 'density' must be bool, not int"),
    C("nonzero-as_tuple-str", 'pdt.nonzero(t, as_tuple="x")', "TypeError",
      r"nonzero\(\): argument 'as_tuple' must be bool, not str"),
]
