"""The bad-input catalogue's cases for mixed precision (pydevtensor.amp: autocast and
GradScaler).  tests/bad_input_cases.py (where Case is) adds them to CASES;
tests/test_bad_input.py runs them."""
from bad_input_cases import C

# a scaler that has scaled one loss of p, and its optimizer
_SCALED = """p = pdt.nn.Parameter(pdt.ones(2))
opt = pdt.optim.SGD([p], lr=0.1)
s = pdt.amp.GradScaler("cpu")
s.scale(p.sum()).backward()
"""

AMP_CASES = [
    C("autocast-device-type-unknown", 'pdt.autocast("tpu")', "RuntimeError",
      r"autocast: unsupported autocast device_type 'tpu': expected 'cpu' or 'cuda'"),
    C("autocast-device-type-not-str", "pdt.autocast(pdt.device('cpu'))", "ValueError",
      r"Expected `device_type` of type `str`"),
    C("autocast-dtype-not-dtype", 'pdt.autocast("cpu", dtype="float16")', "TypeError",
      r"dtype must be a pydevtensor.dtype \(float16 or bfloat16\), not str"),
    C("autocast-dtype-float32-warns",
      'import warnings\nwarnings.simplefilter("error")\npdt.autocast("cpu", dtype=pdt.float32)',
      "UserWarning", r"target dtype is not supported. Disabling autocast", isolated=True),
    C("is-autocast-enabled-unknown", 'pdt.is_autocast_enabled("tpu")', "RuntimeError",
      r"is_autocast_enabled\(\): unsupported autocast device_type 'tpu'"),
    C("is-autocast-enabled-hip", 'pdt.is_autocast_enabled("hip")', "RuntimeError",
      r"is_autocast_enabled\(\): unsupported autocast device_type 'hip'"),
    C("set-autocast-dtype-not-dtype", 'pdt.set_autocast_dtype("cpu", 16)', "TypeError",
      r"set_autocast_dtype\(\): dtype must be a pydevtensor.dtype"),
    C("get-autocast-dtype-unknown", 'pdt.get_autocast_dtype("meta")', "RuntimeError",
      r"get_autocast_dtype\(\): unsupported autocast device_type 'meta'"),
    C("is-autocast-cpu-enabled-args", "pdt.is_autocast_cpu_enabled('cpu')", "TypeError",
      r"takes 0 positional arguments but 1 was given"),
    C("get-autocast-cpu-dtype-args", "pdt.get_autocast_cpu_dtype('cpu')", "TypeError",
      r"takes 0 positional arguments but 1 was given"),
    C("get-autocast-gpu-dtype-args", "pdt.get_autocast_gpu_dtype('cuda')", "TypeError",
      r"takes 0 positional arguments but 1 was given"),
    C("autocast-increment-nesting-args", "pdt.autocast_increment_nesting(1)", "TypeError",
      r"takes 0 positional arguments but 1 was given"),
    C("autocast-decrement-nesting-args", "pdt.autocast_decrement_nesting(1)", "TypeError",
      r"takes 0 positional arguments but 1 was given"),
    C("set-autocast-enabled-unknown", 'pdt.set_autocast_enabled("tpu", True)', "RuntimeError",
      r"set_autocast_enabled\(\): unsupported autocast device_type 'tpu'"),
    C("set-autocast-enabled-not-bool", 'pdt.set_autocast_enabled("cpu", "yes")', "TypeError",
      r"set_autocast_enabled\(\): enabled must be a bool \(got str\)"),
    C("set-autocast-cache-enabled-not-bool", 'pdt.set_autocast_cache_enabled("x")',
      "TypeError", r"set_autocast_cache_enabled\(\): enabled must be a bool \(got str\)"),
    C("is-autocast-cache-enabled-args", "pdt.is_autocast_cache_enabled(1)", "TypeError",
      r"takes 0 positional arguments but 1 was given"),
    C("clear-autocast-cache-args", "pdt.clear_autocast_cache(1)", "TypeError",
      r"takes 0 positional arguments but 1 was given"),
    C("custom-fwd-device-type-not-str", 'pdt.amp.custom_fwd(device_type=0)', "ValueError",
      r"Expected `device_type` of type `str`, got: `<class 'int'>`"),
    C("custom-fwd-no-device-type", 'pdt.amp.custom_fwd(lambda ctx: 0)', "TypeError",
      r"missing 1 required keyword-only argument: 'device_type'"),
    C("custom-bwd-device-type-not-str", 'pdt.amp.custom_bwd(device_type=None)', "ValueError",
      r"Expected `device_type` of type `str`, got: `<class 'NoneType'>`"),
    C("custom-fwd-unknown-device-type",
      'pdt.amp.custom_fwd(lambda ctx: 0, device_type="tpu")(object())', "RuntimeError",
      r"get_autocast_dtype\(\): unsupported autocast device_type 'tpu'"),
    C("cuda-amp-custom-bwd-no-bwd",
      'import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter("ignore")\n'
      '    pdt.cuda.amp.custom_bwd()',
      "TypeError", r"missing 1 required positional argument: 'bwd'"),
    C("grad-scaler-device", 'pdt.amp.GradScaler("tpu")', "RuntimeError",
      r"GradScaler: device must be 'cuda' or 'cpu', got 'tpu'"),
    C("grad-scaler-growth-factor", 'pdt.amp.GradScaler("cpu", growth_factor=0.5)',
      "AssertionError", r"The growth factor must be > 1.0"),
    C("grad-scaler-backoff-factor", 'pdt.amp.GradScaler("cpu", backoff_factor=2.0)',
      "AssertionError", r"The backoff factor must be < 1.0"),
    C("grad-scaler-unscale-twice", _SCALED + "s.unscale_(opt)\ns.unscale_(opt)",
      "RuntimeError", r"unscale_\(\) has already been called on this optimizer since the "
      r"last update\(\)"),
    C("grad-scaler-unscale-after-step", _SCALED + "s.step(opt)\ns.unscale_(opt)",
      "RuntimeError", r"unscale_\(\) is being called after step\(\)"),
    C("grad-scaler-step-twice", _SCALED + "s.step(opt)\ns.step(opt)", "RuntimeError",
      r"step\(\) has already been called since the last update\(\)"),
    C("grad-scaler-closure", _SCALED + "s.step(opt, closure=lambda: 0.0)", "RuntimeError",
      r"Closure use is not currently supported if GradScaler is enabled"),
    C("grad-scaler-step-before-scale",
      'pdt.amp.GradScaler("cpu").step(pdt.optim.SGD([pdt.nn.Parameter(pdt.ones(1))], lr=1.))',
      "AssertionError", r"Attempted step but _scale is None"),
    C("grad-scaler-step-without-grads",
      'p = pdt.nn.Parameter(pdt.ones(2))\nopt = pdt.optim.SGD([p], lr=0.1)\n'
      's = pdt.amp.GradScaler("cpu")\ns.scale(pdt.ones(1))\ns.step(opt)', "AssertionError",
      r"No inf checks were recorded for this optimizer\."),
    C("grad-scaler-update-without-step",
      's = pdt.amp.GradScaler("cpu")\ns.scale(pdt.ones(1))\ns.update()', "AssertionError",
      r"No inf checks were recorded prior to update"),
    C("grad-scaler-update-new-scale-shape", _SCALED + "s.update(pdt.ones(2))",
      "AssertionError", r"new_scale should be a float or a 1-element"),
    C("grad-scaler-load-empty", 'pdt.amp.GradScaler("cpu").load_state_dict({})',
      "RuntimeError", r"The source state dict is empty"),
    C("grad-scaler-scale-not-tensor", 'pdt.amp.GradScaler("cpu").scale(3.0)', "ValueError",
      r"outputs must be a Tensor or an iterable of Tensors"),
    C("grad-scaler-fp16-grads",
      'p = pdt.nn.Parameter(pdt.ones(2, dtype=pdt.float16))\n'
      'opt = pdt.optim.SGD([p], lr=0.1)\ns = pdt.amp.GradScaler("cpu")\n'
      's.scale(p.float().sum()).backward()\ns.unscale_(opt)',
      "ValueError", r"Attempting to unscale FP16 gradients \(a gradient of shape \(2,\) on "
      r"cpu\)"),
]
