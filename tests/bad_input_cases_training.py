"""The bad-input catalogue's cases for training code: save and load (corrupt files),
nn, optim, optim.lr_scheduler and utils.data.  tests/bad_input_cases.py (where Case and
the shared constants are) adds them to CASES; tests/test_bad_input.py runs them."""
from bad_input_cases import C, TWO_CPUS, FILE

TRAINING_CASES = [
    # ---- save and load: corrupt files
    C("load-weights-only-str", 'pdt.load(io.BytesIO(b""), weights_only="yes")', "TypeError",
      r"load\(\): weights_only must be True, False or None, got str"),
    C("load-missing-file", 'pdt.load("/nonexistent/x.npz")', "FileNotFoundError",
      r"No such file or directory"),
    C("load-garbage", 'pdt.load(write_bytes(b"garbage"))', "ValueError",
      r"is not a pydevtensor file \(not a readable .npz"),
    C("load-truncated", f"data = open(npz({FILE}, x=a), 'rb').read()\n"
      "pdt.load(write_bytes(data[:len(data) // 2]))", "ValueError",
      r"is not a pydevtensor file .*(zip|File)"),
    C("load-empty-stream", 'pdt.load(io.BytesIO(b""))', "ValueError",
      r"not a pydevtensor file"),
    C("load-text-mode", "p = tempfile.mktemp()\npdt.save(a, p)\npdt.load(open(p, 'r'))",
      "TypeError", r"is a text file; open it in binary mode \('rb'\)"),
    C("save-text-mode", "pdt.save(a, open(tempfile.mktemp(), 'w'))", "TypeError",
      r"is a text file; open it in binary mode \('wb'\)"),
    C("save-missing-folder", "pdt.save(a, '/nonexistent/x.pdt')", "FileNotFoundError",
      r"save\(\): the folder '/nonexistent' does not exist"),
    C("load-plain-npy", "p = tempfile.mktemp(suffix='.npy')\nnp.save(p, a)\npdt.load(p)",
      "ValueError", r"is a single NumPy array, not a pydevtensor file"),
    C("load-no-record", "pdt.load(npz(None, x=a))", "ValueError",
      r"without pydevtensor's '__pydevtensor__' record"),
    # the layout of torch.save's zip (archive/data.pkl, archive/data/0), made by hand
    C("load-pytorch-file", "buf = io.BytesIO()\nwith zipfile.ZipFile(buf, 'w') as z:\n"
      "    z.writestr('archive/data.pkl', b'x')\n    z.writestr('archive/data/0', b'0')\n"
      "pdt.load(write_bytes(buf.getvalue()))", "ValueError",
      r"is a PyTorch file \(torch.save's zip, with a data.pkl\), which only torch.load reads"),
    C("load-other-zip", "buf = io.BytesIO()\nwith zipfile.ZipFile(buf, 'w') as z:\n"
      "    z.writestr('notes.txt', b'x')\npdt.load(write_bytes(buf.getvalue()))", "ValueError",
      r"is a zip file, but neither a pydevtensor file nor a .npz \(it holds \['notes.txt'\]"),
    C("load-bad-json", 'pdt.load(npz("{not json", x=a))', "ValueError",
      r"corrupt '__pydevtensor__' record"),
    C("load-json-list", "pdt.load(npz(json.dumps([1, 2]), x=a))", "ValueError",
      r"corrupt '__pydevtensor__' record"),
    C("load-version", "pdt.load(npz(dict(meta(), version=5), x=a))", "ValueError",
      r"version 5; expected 'pydevtensor.npz' version 1 to 4 \(a newer pydevtensor wrote it\?\)"),
    C("load-view-outside-storage",
      "pdt.load(npz(dict(meta(), version=3, tensors={'x': dict(device='cpu', dtype='float32', "
      "view=dict(storage='s', shape=[9], stride=[1], offset=0))}, "
      "storages={'s': dict(device='cpu', dtype='float32')}), s=np.zeros(3, np.float32)))",
      "ValueError", r"tensor 'x' is a view outside its storage .*out of bounds"),
    C("load-view-unknown-storage",
      "pdt.load(npz(dict(meta(), version=3, tensors={'x': dict(device='cpu', dtype='float32', "
      "view=dict(storage='t', shape=[1], stride=[1], offset=0))}), x=a))",
      "ValueError", r"corrupt .*is a view of storage 't', which is not listed"),
    C("load-map-location-bad-return",
      "buf = io.BytesIO()\npdt.save(pdt.ones(2), buf)\nbuf.seek(0)\n"
      "pdt.load(buf, map_location=lambda s, loc: 'cpu')", "TypeError",
      r"map_location\(storage, 'cpu'\) returned str; it must return a Tensor"),
    C("save-object-array", "pdt.save({'a': np.array([object()])}, io.BytesIO())", "TypeError",
      r"obj\['a'\] is a NumPy array of dtype object, which save\(\) cannot write without "
      r"pickling"),
    C("load-tree-in-version-1", 'pdt.load(npz(dict(meta(), kind="tree", tree=None), x=a))',
      "ValueError", r"corrupt .*kind 'tree' is neither 'tensor' nor 'dict'"),
    C("load-tree-missing", 'pdt.load(npz(dict(meta(), version=2, kind="tree"), x=a))',
      "ValueError", r"corrupt '__pydevtensor__' record \(KeyError: 'tree'\)"),
    C("load-tree-unknown-tensor",
      'pdt.load(npz(dict(meta(), version=2, kind="tree", tree=[{"tensor": "y"}])))',
      "ValueError", r"the tree at obj\[0\] names tensor 'y', which the record does not list"),
    C("load-tree-unused-tensor",
      f'pdt.load(npz(dict({FILE}, version=2, kind="tree", tree=[]), x=a))',
      "ValueError", r"it lists tensor 'x', which the tree does not use"),
    C("load-tree-bad-node",
      'pdt.load(npz(dict(meta(), version=2, kind="tree", tree={"deque": []})))',
      "ValueError", r"the tree at obj is \{'deque': \[\]\}, not a value, a list or one of"),
    C("load-tensors-list", "pdt.load(npz(dict(meta(), tensors=[1, 2]), x=a))", "ValueError",
      r"corrupt .* \('tensors' is a list, not a dict\)"),
    C("load-entry-no-device", 'pdt.load(npz(meta(x={"dtype": "float32"}), x=a))', "ValueError",
      r"corrupt .*the entry of 'x' is \{'dtype': 'float32'\}"),
    C("load-entry-device-int", 'pdt.load(npz(meta(x={"device": 5, "dtype": "float32"}), x=a))',
      "ValueError", r"corrupt .*the entry of 'x' is \{'device': 5"),
    C("load-entry-device-unknown",
      'pdt.load(npz(meta(x={"device": "tpu:0", "dtype": "float32"}), x=a))', "ValueError",
      r"corrupt .*tensor 'x' has device 'tpu:0'"),
    C("load-kind-tensor-no-tensor", 'pdt.load(npz(dict(meta(), kind="tensor"), x=a))',
      "ValueError", r"kind 'tensor' needs exactly one entry named 'tensor'"),
    C("load-missing-array", f"pdt.load(npz({FILE}))", "ValueError",
      r"lists tensor 'x' but does not hold it"),
    C("load-dtype-mismatch",
      'pdt.load(npz(meta(x={"device": "cpu", "dtype": "float64"}), x=a))', "ValueError",
      r"tensor 'x' is recorded as float64 but holds float32"),
    C("load-object-array",
      'pdt.load(npz(meta(x={"device": "cpu", "dtype": "object"}), x=np.array([object()])))',
      "ValueError", r"Object arrays cannot be loaded"),
    C("load-cuda-63",
      'pdt.load(npz(meta(x={"device": "cuda:63", "dtype": "float32"}), x=a))',
      "pydevtensor.DeviceError", r"tensor 'x' was saved on cuda:63.*Pass map_location"),
    C("load-map-location-int", f"pdt.load(npz({FILE}, x=a), map_location=5)", "TypeError",
      r"map_location must be a device, a string, a dict or a callable, got int"),
    C("save-deque", "import collections\npdt.save(collections.deque([1]), io.BytesIO())",
      "TypeError",
      r"save\(\): obj is a deque, which save\(\) cannot write \(it writes tensors, numbers, "
      r"complex numbers, strings, bytes, None, devices, dtypes, NumPy arrays of numbers or "
      r"strings, and lists, tuples, sets and dicts of them\)"),
    C("save-nested-slice", 'pdt.save({"optim": {"state": {0: {"s": slice(2)}}}}, io.BytesIO())',
      "TypeError", r"save\(\): obj\['optim'\]\['state'\]\[0\]\['s'\] is a slice, which "
      r"save\(\) cannot"),
    C("save-datetime-array", 'pdt.save({"x": np.zeros(2, "datetime64[s]")}, io.BytesIO())',
      "TypeError", r"obj\['x'\] is a NumPy array of dtype datetime64\[s\], which save\(\) "
      r"cannot write without pickling"),
    C("save-object-key", "pdt.save({'a': {(1, object()): t}}, io.BytesIO())", "TypeError",
      r"obj\['a'\] has the key \(1, <object object at .*\) of type tuple, which save\(\) "
      r"cannot write"),
    C("save-too-deep", "x = [t]\nfor _ in range(64): x = [x]\npdt.save(x, io.BytesIO())",
      "ValueError", r"save\(\): obj(\[0\]){64} is nested more than 64 containers deep"),
    C("save-cycle", "x = {}\nx['self'] = x\npdt.save(x, io.BytesIO())", "ValueError",
      r"save\(\): obj\['self'\] contains itself"),
    C("save-huge-int", "pdt.save(10**5000, io.BytesIO())", "ValueError",
      r"obj is an int of 16610 bits, too long to write"),

    # ---- nn
    C("Linear-negative", "pdt.nn.Linear(-1, 3)", "ValueError", r"in_features must be >= 0"),
    C("Linear-float", "pdt.nn.Linear(3.0, 3)", "TypeError", r"in_features must be an int"),
    C("Linear-huge", "pdt.nn.Linear(2**40, 2**40)", "ValueError", r"more than 2\^62 bytes"),
    C("Linear-unknown-device", 'pdt.nn.Linear(3, 4, device="tpu")', "ValueError",
      r"'tpu': unknown device type"),
    C("Linear-input-shape", "pdt.nn.Linear(3, 4)(pdt.zeros(2, 5))", "ValueError",
      r"input of shape \(2, 5\) does not match weight of shape \(4, 3\)"),
    # ---- optim.lr_scheduler
    C("StepLR-not-optimizer", "pdt.optim.lr_scheduler.StepLR([], 3)", "TypeError",
      r"StepLR: list is not an Optimizer"),
    C("StepLR-step-size-zero",
      "pdt.optim.lr_scheduler.StepLR(pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), 0)",
      "ValueError", r"StepLR: step_size must be > 0, got 0"),
    C("MultiStepLR-float-milestone",
      "pdt.optim.lr_scheduler.MultiStepLR(pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), [2.5])",
      "TypeError", r"MultiStepLR: a milestone must be an int, got float"),
    C("ExponentialLR-nan-gamma", 'pdt.optim.lr_scheduler.ExponentialLR('
      'pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), float("nan"))', "TypeError",
      r"ExponentialLR: gamma must be a number, got nan"),
    C("CosineAnnealingLR-T_max-str", "pdt.optim.lr_scheduler.CosineAnnealingLR("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), '10')", "TypeError",
      r"CosineAnnealingLR: T_max must be a number, got str"),
    C("LambdaLR-not-callable", "pdt.optim.lr_scheduler.LambdaLR("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), 0.5)", "TypeError",
      r"LambdaLR: lr_lambda must be callable \(epoch -> factor\), got float"),
    C("LambdaLR-count", "pdt.optim.lr_scheduler.LambdaLR("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), [abs, abs])", "ValueError",
      r"LambdaLR: 2 lr_lambdas for 1 parameter groups"),
    C("StepLR-resume-fresh", "pdt.optim.lr_scheduler.StepLR("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), 3, last_epoch=5)", "KeyError",
      r"param_groups\[0\] has no 'initial_lr': resuming with last_epoch=5"),
    C("LinearLR-start-factor-zero", "pdt.optim.lr_scheduler.LinearLR("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), start_factor=0)", "ValueError",
      r"LinearLR: start_factor must be in \(0.0, 1.0\], got 0.0"),
    C("SequentialLR-milestones", "opt = pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1)\n"
      "pdt.optim.lr_scheduler.SequentialLR(opt, [pdt.optim.lr_scheduler.StepLR(opt, 2)], [3])",
      "ValueError", r"SequentialLR: expects one milestone fewer than schedulers, got 1 "
      r"schedulers and 1 milestones"),
    C("CosineAnnealingWarmRestarts-T_0-zero", "pdt.optim.lr_scheduler."
      "CosineAnnealingWarmRestarts(pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), 0)",
      "ValueError", r"CosineAnnealingWarmRestarts: T_0 must be >= 1, got 0"),
    C("OneCycleLR-no-steps", "pdt.optim.lr_scheduler.OneCycleLR("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), max_lr=1.0)", "ValueError",
      r"OneCycleLR: give total_steps, or epochs and steps_per_epoch \(got total_steps=None"),
    C("OneCycleLR-past-the-end", "s = pdt.optim.lr_scheduler.OneCycleLR("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), max_lr=1.0, total_steps=2)\n"
      "for _ in range(3):\n    s.step()", "ValueError",
      r"OneCycleLR: tried to step 3 times; the schedule has total_steps=2"),
    C("ReduceLROnPlateau-factor", "pdt.optim.lr_scheduler.ReduceLROnPlateau("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1), factor=2.0)", "ValueError",
      r"ReduceLROnPlateau: factor must be < 1, got 2.0"),
    C("ReduceLROnPlateau-metric-str", "pdt.optim.lr_scheduler.ReduceLROnPlateau("
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1)).step('low')", "TypeError",
      r"metrics must be a number or a one-element tensor, got str"),

    # ---- nn: buffers, normalisation layers, embeddings, distances, containers
    C("register_buffer-list", 'pdt.nn.Module().register_buffer("b", [1.0])', "TypeError",
      r"register_buffer: cannot assign list to buffer 'b' \(expected a Tensor or None\)"),
    C("register_buffer-dotted", 'pdt.nn.Module().register_buffer("a.b", t)', "KeyError",
      r"neither empty nor contain '\.', got 'a\.b'"),
    C("register_buffer-taken", 'pdt.nn.Linear(2, 2).register_buffer("weight", t)', "KeyError",
      r"attribute 'weight' already exists"),
    C("add_module-dotted", 'pdt.nn.Module().add_module("a.b", pdt.nn.ReLU())', "KeyError",
      r"add_module: a module's name can be neither empty nor contain '\.', got 'a\.b'"),
    C("add_module-int", 'pdt.nn.Module().add_module(3, pdt.nn.ReLU())', "TypeError",
      r"add_module: the module name must be a str, got int"),
    C("add_module-training", 'pdt.nn.Module().add_module("training", pdt.nn.ReLU())',
      "KeyError", r"add_module: attribute 'training' already exists"),
    C("register_parameter-empty",
      'pdt.nn.Module().register_parameter("", pdt.nn.Parameter(t))', "KeyError",
      r"register_parameter: a parameter's name can be neither empty nor contain '\.', got ''"),
    C("parameter-assign-forward", "m = pdt.nn.Linear(2, 2)\nm.forward = pdt.nn.Parameter(t)",
      "KeyError", r"cannot assign a Parameter: attribute 'forward' already exists"),
    C("buffer-assign-int", "bn = pdt.nn.BatchNorm1d(3)\nbn.running_mean = 0", "TypeError",
      r"cannot assign int to buffer 'running_mean' \(expected a Tensor or None\)"),
    C("load_state_dict-buffer-shape", "bn = pdt.nn.BatchNorm1d(3)\nsd = bn.state_dict()\n"
      "sd['running_var'] = pdt.ones(4)\nbn.load_state_dict(sd)", "RuntimeError",
      r"size mismatch for 'running_var': copying a tensor of shape \(4,\), the buffer has "
      r"shape \(3,\)"),
    C("load_state_dict-uninitialized", "net = pdt.nn.LazyLinear(2)\nnet(t)\n"
      "net.load_state_dict(pdt.nn.LazyLinear(2).state_dict())", "RuntimeError",
      r"'weight' is an uninitialized parameter \(its lazy layer never ran\), the parameter "
      r"has shape \(2, 3\)"),
    C("BatchNorm1d-features", "pdt.nn.BatchNorm1d(4)(t)", "pydevtensor.InvalidArgumentError",
      r"BatchNorm1d: expected 4 features \(dimension 1 of the input\), got 3 in an input of "
      r"shape \(2, 3\) \(on cpu\)"),
    C("BatchNorm1d-one-value", "pdt.nn.BatchNorm1d(3)(t[:1])", "ValueError",
      r"Expected more than 1 value per channel when training, got input size \(1, 3\) "
      r"\(on cpu\)"),
    C("BatchNorm1d-4d", "pdt.nn.BatchNorm1d(3)(t.reshape(2, 3, 1, 1))",
      "pydevtensor.InvalidArgumentError",
      r"expected 2D or 3D input \(N, C\) or \(N, C, L\), got 4D input"),
    C("BatchNorm1d-zero", "pdt.nn.BatchNorm1d(0)", "ValueError",
      r"num_features must be >= 1, got 0"),
    C("BatchNorm1d-other-device", 'pdt.nn.BatchNorm1d(3)(pdt.ones(2, 3, device="cpu:1"))',
      "pydevtensor.DeviceError", r"BatchNorm1d: the input is on cpu:1 but the layer's "
      r"parameters and buffers are on cpu", setup=TWO_CPUS),
    C("BatchNorm1d-dtype", "pdt.nn.BatchNorm1d(3)(t.double())", "TypeError",
      r"the input is pydevtensor\.float64 but the layer's parameters and buffers are "
      r"pydevtensor\.float32"),
    # ---- convolutions, pools, BatchNorm2d (D2L chapters 7-8)
    C("conv2d-channels", "pdt.nn.functional.conv2d(pdt.zeros(2, 3, 8, 8), pdt.zeros(4, 2, 3, 3))",
      "pydevtensor.InvalidArgumentError",
      r"conv2d\(\): given groups=1, weight of shape \(4, 2, 3, 3\), expected input of shape "
      r"\(2, 3, 8, 8\) to have 2 channels, but got 3 channels instead \(on cpu\)"),
    C("conv2d-3d-weight", "pdt.nn.functional.conv2d(pdt.zeros(1, 1, 8, 8), pdt.zeros(6, 1, 5))",
      "pydevtensor.InvalidArgumentError",
      r"weight must be 4-d \(out_channels, in_channels / groups, kH, kW\), got shape "
      r"\(6, 1, 5\) \(on cpu\)"),
    C("conv2d-kernel-too-big", "pdt.nn.Conv2d(1, 1, 5)(pdt.zeros(1, 1, 3, 3))",
      "pydevtensor.InvalidArgumentError",
      r"the kernel does not fit: padded input size per channel \(3, 3\) against a kernel "
      r"spanning \(5, 5\).*on cpu"),
    C("conv2d-stride-zero", "pdt.nn.Conv2d(1, 1, 3, stride=0)", "ValueError",
      r"Conv2d: stride must be positive, got stride=\(0, 0\)"),
    C("conv2d-padding-negative", "pdt.nn.functional.conv2d(pdt.zeros(1, 1, 4, 4), "
      "pdt.zeros(1, 1, 2, 2), padding=-1)", "ValueError", r"padding must be non-negative"),
    C("conv2d-groups", "pdt.nn.Conv2d(3, 4, 3, groups=2)", "ValueError",
      r"in_channels must be divisible by groups, got in_channels=3 and groups=2"),
    C("conv2d-reflect-too-wide", 'pdt.nn.Conv2d(1, 1, 3, padding=4, padding_mode="reflect")'
      "(pdt.zeros(1, 1, 4, 4))", "pydevtensor.InvalidArgumentError",
      r"pad\(\): Padding size should be less than the corresponding input dimension, but got: "
      r"padding \(4, 4\) at dimension 3 of input \(1, 1, 4, 4\) \(on cpu\)"),
    C("conv_transpose2d-output-padding", "pdt.nn.functional.conv_transpose2d(pdt.zeros(1, 2, 4, 4), "
      "pdt.zeros(2, 3, 3, 3), output_padding=1)", "pydevtensor.InvalidArgumentError",
      r"conv_transpose2d\(\): output padding must be smaller than either stride or dilation, "
      r"but got output_padding=\(1, 1\), stride=\(1, 1\), dilation=\(1, 1\) \(input of shape "
      r"\(1, 2, 4, 4\) on cpu\)"),
    C("conv_transpose2d-channels", "pdt.nn.ConvTranspose2d(3, 4, 3)(pdt.zeros(1, 2, 5, 5))",
      "pydevtensor.InvalidArgumentError", r"conv_transpose2d\(\): given groups=1, weight of "
      r"shape \(3, 4, 3, 3\), expected input of shape \(1, 2, 5, 5\) to have 3 channels, but "
      r"got 2 channels instead \(on cpu\)"),
    C("conv_transpose2d-too-small", "pdt.nn.ConvTranspose2d(1, 1, 1, padding=1)"
      "(pdt.zeros(1, 1, 1, 1))", "pydevtensor.InvalidArgumentError",
      r"Given input size per channel: \(1, 1\)\. Calculated output size per channel: "
      r"\(-1, -1\)\. Output size is too small"),
    C("ConvTranspose2d-output-size", "pdt.nn.ConvTranspose2d(2, 3, 3, stride=2)"
      "(pdt.zeros(1, 2, 4, 4), output_size=(11, 10))", "ValueError",
      r"ConvTranspose2d: requested an output size of \(11, 10\), but valid sizes range from "
      r"\[9, 9\] to \[10, 10\] \(for an input of \(4, 4\), on cpu\)"),
    C("ConvTranspose2d-padding-mode", 'pdt.nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect")',
      "ValueError", r'Only "zeros" padding mode is supported for ConvTranspose2d'),
    C("conv_transpose1d-3d-weight", "pdt.nn.functional.conv_transpose1d(pdt.zeros(1, 2, 4), "
      "pdt.zeros(2, 3))", "pydevtensor.InvalidArgumentError",
      r"conv_transpose1d\(\): weight must be 3-d \(in_channels, out_channels / groups, kW\), "
      r"got shape \(2, 3\) \(on cpu\)"),
    C("pad-odd", "pdt.nn.functional.pad(pdt.zeros(1, 2, 5), (1,))",
      "pydevtensor.InvalidArgumentError", r"pad\(\): Padding length must be divisible by 2, "
      r"got pad=\(1,\) \(input of shape \(1, 2, 5\) on cpu\)"),
    C("pad-reflect-4d-1pair", 'pdt.nn.functional.pad(pdt.zeros(1, 1, 2, 5), (1, 1), "reflect")',
      "NotImplementedError", r"pad\(\): Padding size 2 is not supported for 4D input tensor "
      r"\(shape \(1, 1, 2, 5\) on cpu, mode='reflect'\)"),
    C("pad-crop-too-much", "pdt.nn.functional.pad(pdt.zeros(2, 5), (-3, -3))",
      "pydevtensor.InvalidArgumentError", r"pad\(\): the padding \(-3, -3\) of dimension 1 "
      r"\(size 5\) leaves a negative size -1 \(input of shape \(2, 5\) on cpu\)"),
    C("ReflectionPad2d-2-ints", "pdt.nn.ReflectionPad2d((1, 2))", "ValueError",
      r"ReflectionPad2d: padding must be an int or a tuple of 4 ints \(left, right, top, "
      r"bottom\), got \(1, 2\)"),
    C("alpha_dropout-p", "pdt.nn.functional.alpha_dropout(t, 1.5, True)", "ValueError",
      r"dropout probability has to be between 0 and 1, but got 1.5"),
    C("feature_alpha_dropout-1d", "pdt.nn.functional.feature_alpha_dropout(pdt.ones(3), 0.5, "
      "True)", "RuntimeError", r"feature_alpha_dropout\(\): Feature dropout requires at least "
      r"2 dimensions in the input, got shape \(3,\) \(on cpu\)"),
    C("alpha_dropout-int", "pdt.nn.AlphaDropout()(pdt.ones(3, dtype=pdt.int64))",
      "RuntimeError", r"alpha_dropout\(\): expected a floating point tensor, got .*int64"),
    C("dropout1d-4d", "pdt.nn.Dropout1d()(pdt.zeros(2, 3, 4, 4))", "pydevtensor.InvalidArgumentError",
      r"dropout1d\(\): Expected 2D or 3D input, but received a 4D input of shape \(2, 3, 4, 4\) "
      r"\(on cpu\)"),
    C("dropout2d-p", "pdt.nn.functional.dropout2d(pdt.zeros(2, 3, 4, 4), 1.5)", "ValueError",
      r"dropout probability has to be between 0 and 1, but got 1\.5"),
    C("dropout2d-int", "pdt.nn.functional.dropout2d(pdt.zeros(2, 3, 4, 4, dtype=pdt.int64))",
      "RuntimeError", r"dropout2d\(\): expected a floating point tensor, got pydevtensor\.int64 "
      r"\(on cpu\)"),
    C("group_norm-groups", "pdt.nn.functional.group_norm(pdt.zeros(2, 4, 3), 3)",
      "pydevtensor.InvalidArgumentError", r"group_norm\(\): Expected number of channels in input "
      r"to be divisible by num_groups, but got input of shape \(2, 4, 3\) and num_groups=3 "
      r"\(on cpu\)"),
    C("GroupNorm-indivisible", "pdt.nn.GroupNorm(3, 4)", "ValueError",
      r"GroupNorm: num_channels \(4\) must be divisible by num_groups \(3\)"),
    C("GroupNorm-channels", "pdt.nn.GroupNorm(2, 4)(pdt.zeros(2, 6, 3))",
      "pydevtensor.InvalidArgumentError", r"group_norm\(\): weight of shape \(4,\) does not "
      r"match"),
    C("instance_norm-one-position", "pdt.nn.functional.instance_norm(pdt.zeros(2, 4, 1, 1))",
      "ValueError", r"instance_norm\(\): Expected more than 1 spatial element when training, "
      r"got input size \(2, 4, 1, 1\) \(on cpu\)"),
    C("InstanceNorm2d-2d-input", "pdt.nn.InstanceNorm2d(3)(pdt.zeros(3, 4))",
      "pydevtensor.InvalidArgumentError", r"InstanceNorm2d: expected 3D \(unbatched\) or 4D "
      r"\(batched\) input \(C, H, W\) or \(N, C, H, W\), got 2D input of shape \(3, 4\)"),
    C("LazyInstanceNorm1d-1d-input", "pdt.nn.LazyInstanceNorm1d()(pdt.zeros(5))",
      "pydevtensor.InvalidArgumentError", r"LazyInstanceNorm1d: expected 2D \(unbatched\) or "
      r"3D \(batched\) input \(C, L\) or \(N, C, L\), got 1D input of shape \(5,\)"),
    C("LazyInstanceNorm3d-momentum", "pdt.nn.LazyInstanceNorm3d(momentum='0.1')", "TypeError",
      r"LazyInstanceNorm3d: momentum must be a number or None, got str"),
    C("conv2d-same-strided", 'pdt.nn.Conv2d(1, 1, 3, stride=2, padding="same")', "ValueError",
      r"padding='same' is not supported for strided convolutions"),
    C("conv2d-other-device", 'pdt.nn.Conv2d(1, 1, 3)(pdt.zeros(1, 1, 4, 4, device="cpu:1"))',
      "pydevtensor.DeviceError", r"conv2d\(\): Expected all tensors to be on the same device, "
      r"but the input is on cpu:1 and weight on cpu", setup=TWO_CPUS),
    C("conv2d-dtype", "pdt.nn.Conv2d(1, 1, 3)(pdt.zeros(1, 1, 4, 4, dtype=pdt.float64))",
      "TypeError", r"the input is pydevtensor\.float64 but the parameter 'weight' is "
      r"pydevtensor\.float32.*in layer Conv2d\(1, 1"),
    C("conv2d-2d-input", "pdt.nn.Conv2d(1, 1, 3)(pdt.zeros(4, 4))",
      "pydevtensor.InvalidArgumentError",
      r"expected a 3-d \(unbatched\) or 4-d \(batched\) input, got shape \(4, 4\) \(on cpu\)"),
    C("unfold-no-window", "pdt.nn.functional.unfold(pdt.zeros(1, 1, 2, 2), 3)",
      "pydevtensor.InvalidArgumentError", r"unfold\(\): the kernel does not fit"),
    C("fold-blocks", "pdt.nn.functional.fold(pdt.zeros(1, 4, 5), (3, 3), 2)",
      "pydevtensor.InvalidArgumentError",
      r"sliding blocks 2 \* 2 = 4, but got 5 \(input of shape \(1, 4, 5\) on cpu\)"),
    C("max_pool2d-padding", "pdt.nn.MaxPool2d(2, padding=2)(pdt.zeros(1, 1, 4, 4))",
      "pydevtensor.InvalidArgumentError",
      r"pad should be at most half of effective kernel size, but got pad=2, kernel_size=2"),
    C("avg_pool2d-too-small", "pdt.nn.AvgPool2d(5)(pdt.zeros(1, 2, 4, 4))",
      "pydevtensor.InvalidArgumentError",
      r"given input size \(2x4x4\), calculated output size \(2x0x0\) is too small"),
    C("max_pool2d-bool", "pdt.nn.functional.max_pool2d(pdt.zeros(1, 1, 4, 4, dtype=pdt.bool), 2)",
      "RuntimeError", r"expected a floating point input or pydevtensor\.uint8, "
      r".*pydevtensor\.int64, got pydevtensor\.bool"),
    C("adaptive_avg_pool2d-negative", "pdt.nn.AdaptiveAvgPool2d(-1)(pdt.zeros(1, 1, 4, 4))",
      "pydevtensor.InvalidArgumentError",
      r"output_size must be non-negative, got output_size=\(-1, -1\)"),
    C("BatchNorm2d-3d", "pdt.nn.BatchNorm2d(3)(pdt.zeros(3, 4, 4))",
      "pydevtensor.InvalidArgumentError",
      r"BatchNorm2d: expected 4D input \(N, C, H, W\), got 3D input of shape \(3, 4, 4\) "
      r"\(on cpu\)"),
    C("BatchNorm2d-channels", "pdt.nn.BatchNorm2d(4)(pdt.zeros(2, 3, 2, 2))",
      "pydevtensor.InvalidArgumentError",
      r"BatchNorm2d: expected 4 features \(dimension 1 of the input\), got 3"),
    C("LazyConv2d-1d-input", "pdt.nn.LazyConv2d(4, 3)(pdt.zeros(5))",
      "pydevtensor.InvalidArgumentError",
      r"LazyConv2d: expected a 3-d \(unbatched\) or 4-d \(batched\) input to take in_channels "
      r"from, got shape \(5,\)"),
    C("LayerNorm-shape", "pdt.nn.LayerNorm(4)(t)", "pydevtensor.InvalidArgumentError",
      r"LayerNorm: expected an input of shape \(\*, 4\) \(normalized_shape=\(4,\)\), got "
      r"\(2, 3\) \(on cpu\)"),
    C("LayerNorm-eps", "pdt.nn.LayerNorm(3, eps=-1.0)", "ValueError",
      r"eps must be a number >= 0, got -1\.0"),
    C("Embedding-index", "pdt.nn.Embedding(4, 2)(pdt.tensor([[0, 4]]))", "IndexError",
      r"embedding: index 4 is out of bounds for dimension 0 with size 4 \(on cpu\)"),
    C("Embedding-negative-index", "pdt.nn.Embedding(4, 2)(pdt.tensor([-1]))", "IndexError",
      r"embedding: index -1 is out of bounds for dimension 0 with size 4 \(on cpu\)"),
    C("Embedding-float-indices", "pdt.nn.Embedding(4, 2)(t)", "TypeError",
      r"the indices must be int64 or int32, got pydevtensor\.float32 \(on cpu\)"),
    C("Embedding-padding", "pdt.nn.Embedding(4, 2, padding_idx=4)", "ValueError",
      r"padding_idx must be within num_embeddings = 4 \(from -4 to 3\), got 4"),
    C("functional-layer_norm-int", "pdt.nn.functional.layer_norm(pdt.ones(2, 3, "
      "dtype=pdt.int64), 3)", "TypeError",
      r"layer_norm\(\): input must be floating point, got pydevtensor\.int64 \(on cpu\)"),
    C("functional-batch_norm-channels", "pdt.nn.functional.batch_norm(t, pdt.zeros(2), "
      "pdt.ones(2))", "pydevtensor.InvalidArgumentError",
      r"batch_norm\(\): running_mean of shape \(2,\) does not match the input's 3 channels"),
    C("conv3d-4d-weight", "pdt.nn.functional.conv3d(pdt.ones(1, 1, 3, 3, 3), "
      "pdt.ones(1, 1, 3, 3))", "ValueError", r"conv3d\(\)"),
    C("avg_pool3d-pad", "pdt.nn.functional.avg_pool3d(pdt.ones(1, 1, 4, 4, 4), 2, padding=2)",
      "ValueError", r"avg_pool3d\(\): pad should be at most half of effective kernel size"),
    C("BatchNorm3d-4d", "pdt.nn.BatchNorm3d(2)(pdt.ones(2, 2, 3, 3))", "ValueError",
      r"BatchNorm3d: expected 5D input \(N, C, D, H, W\), got 4D input"),
    C("embedding_bag-mode", "pdt.nn.functional.embedding_bag(pdt.tensor([[0]]), t, "
      "mode='median')", "ValueError",
      r"embedding_bag\(\): mode has to be one of sum, mean or max, got 'median'"),
    C("weight_norm-twice", "m = pdt.nn.utils.weight_norm(pdt.nn.Linear(2, 2))\n"
      "pdt.nn.utils.weight_norm(m)", "RuntimeError",
      r"weight_norm\(\): cannot register two weight_norm hooks on the same parameter weight"),
    C("spectral_norm-missing", "pdt.nn.utils.spectral_norm(pdt.nn.ReLU())", "KeyError",
      r"spectral_norm\(\): ReLU has no parameter 'weight'"),
    C("SpectralNorm-apply-iterations", "from pydevtensor.nn.utils.spectral_norm import "
      "SpectralNorm\nSpectralNorm.apply(pdt.nn.Linear(2, 2), 'weight', 0, 0, 1e-12)",
      "ValueError", r"Expected n_power_iterations to be positive, but got "
      r"n_power_iterations=0"),
    C("functional-batch_norm-expanded-var", "pdt.nn.functional.batch_norm(t, pdt.zeros(3), "
      "pdt.ones(1).expand(3), training=True)", "pydevtensor.InvalidArgumentError",
      r"batch_norm\(\): running_var of shape \(3,\) has a stride of 0 \(an expanded tensor\)"),
    C("functional-batch_norm-1d", "pdt.nn.functional.batch_norm(t[0], None, None, "
      "training=True)", "pydevtensor.InvalidArgumentError",
      r"batch_norm\(\): expected an input of shape \(N, C, \*\), got \(3,\)"),
    C("functional-embedding-1d-weight", "pdt.nn.functional.embedding(pdt.tensor([0]), "
      "pdt.zeros(3))", "pydevtensor.InvalidArgumentError",
      r"embedding\(\): weight must be a 2-d Tensor"),
    C("functional-normalize-dim", "pdt.nn.functional.normalize(t, dim=2)", "IndexError",
      r"normalize\(\): Dimension out of range \(expected to be in range of \[-2, 1\], but "
      r"got 2\) \(a tensor of shape \(2, 3\) on cpu\)"),
    C("functional-normalize-dims-twice", "pdt.nn.functional.normalize(t, dim=(1, -1))",
      "RuntimeError", r"normalize\(\): dim \[1, -1\] names a dimension twice \(input "
      r"\(2, 3\), on cpu\)"),
    C("functional-cosine_similarity-shapes",
      "pdt.nn.functional.cosine_similarity(t, pdt.ones(4, 3))", "pydevtensor.InvalidArgumentError",
      r"the shapes \(2, 3\) and \(4, 3\) do not broadcast \(on cpu\)"),
    C("functional-pairwise_distance-bool",
      "pdt.nn.functional.pairwise_distance(pdt.ones(2, dtype=pdt.bool), pdt.ones(2))",
      "TypeError", r"x1 must be floating point, got pydevtensor\.bool \(on cpu\)"),
    C("ModuleDict-value", 'pdt.nn.ModuleDict({"a": 3})', "TypeError",
      r"ModuleDict: expected an nn.Module for key 'a', got int"),
    C("ModuleDict-key", "pdt.nn.ModuleDict({1: pdt.nn.ReLU()})", "TypeError",
      r"ModuleDict: keys must be str, got int"),
    C("ParameterList-extend-tensor", "pdt.nn.ParameterList().extend(t)", "TypeError",
      r"ParameterList.extend should be called with an iterable, but got Tensor"),
    C("ParameterList-int-over-parameter", "ps = pdt.nn.ParameterList([t])\nps[0] = 3",
      "TypeError", r"ParameterList: cannot assign int to parameter '0' \(expected "
      r"nn.Parameter, a Tensor or None\)"),
    C("Sequential-iadd-list", "s = pdt.nn.Sequential()\ns += [pdt.nn.ReLU()]", "ValueError",
      r"add operator supports only objects of Sequential class, but <class 'list'> is "
      r"given"),
    C("ParameterList-index", "pdt.nn.ParameterList([t])[1]", "IndexError",
      r"index 1 is out of range for a ParameterList of 1"),
    C("ParameterDict-key", "pdt.nn.ParameterDict({2: t})", "TypeError",
      r"ParameterDict: keys must be str, got int"),
    C("Sequential-times-zero", "pdt.nn.Sequential(pdt.nn.ReLU()) * 0", "ValueError",
      r"Non-positive multiplication factor 0 for Sequential"),
    C("ModuleList-plus-int", "pdt.nn.ModuleList() + [3]", "TypeError",
      r"ModuleList.__add__: expected an nn.Module, got int"),
    C("ParameterDict-popitem-empty", "pdt.nn.ParameterDict().popitem()", "KeyError",
      r"popitem\(\): dictionary is empty"),
    C("ParameterDict-fromkeys-key", "pdt.nn.ParameterDict().fromkeys([1], t)", "TypeError",
      r"ParameterDict: keys must be str, got int"),

    # ---- nn.DataParallel and nn.parallel (several devices of one process)
    C("DataParallel-not-a-module", "pdt.nn.DataParallel(t)", "TypeError",
      r"DataParallel: expected an nn.Module, got Tensor"),
    C("DataParallel-module-elsewhere",
      'pdt.nn.DataParallel(pdt.nn.Linear(3, 2).to("cpu:1"), device_ids=["cpu", "cpu:1"])(t)',
      "pydevtensor.DeviceError", r"module must have its parameters and buffers on device cpu(:0)? "
      r"\(device_ids\[0\]\) but found one of them on device: cpu:1 \(parameter 'weight'\); "
      r"move the module with .to\('cpu(:0)?'\)$",
      setup=TWO_CPUS),
    C("DataParallel-unknown-device", 'pdt.nn.DataParallel(pdt.nn.Linear(3, 2), ["cpu", "cpu:5"])',
      "pydevtensor.DeviceError", r"cpu:5", setup=TWO_CPUS),
    C("DataParallel-twice", 'pdt.nn.DataParallel(pdt.nn.Linear(3, 2), ["cpu", "cpu:0"])',
      "ValueError", r"each device may appear once in device_ids, got \['cpu', 'cpu'\]"),
    C("DataParallel-two-kinds", 'pdt.nn.DataParallel(pdt.nn.Linear(3, 2), ["cpu", 0])',
      "ValueError", r"device_ids must all be of one kind"),
    C("DataParallel-replica-fails",
      'pdt.nn.DataParallel(pdt.nn.Linear(4, 2), device_ids=["cpu", "cpu:1"])(t)',
      "pydevtensor.InvalidArgumentError", r"Caught InvalidArgumentError in replica 1 on device "
      r"cpu:1: .*in_features = 4", setup=TWO_CPUS),
    C("scatter-0d", 'pdt.nn.parallel.scatter(pdt.tensor(1.0), ["cpu"])', "ValueError",
      r"scatter: cannot split a 0-d tensor \(on cpu\)"),
    C("scatter-one-device", 'pdt.nn.parallel.scatter(t, "cpu")', "TypeError",
      r"scatter: expected a list of devices, got str"),
    C("gather-ints", 'pdt.nn.parallel.gather([1, 2], "cpu")', "TypeError",
      r"gather: cannot gather outputs of type int"),
    C("gather-keys", 'pdt.nn.parallel.gather([{"a": t}, {"b": t}], "cpu")', "ValueError",
      r"gather: all dicts must have the same keys"),
    C("replicate-lazy", 'pdt.nn.parallel.replicate(pdt.nn.LazyLinear(2), ["cpu"])',
      "RuntimeError", r"uninitialized parameters"),
    C("parallel_apply-lengths", "pdt.nn.parallel.parallel_apply([pdt.nn.ReLU()], [t, t])",
      "ValueError", r"expected as many inputs, kwargs and devices as modules \(1\), got 2 "
      r"inputs"),

    # ---- nn: recurrent layers (nn/rnn.py, nn/rnn_cells.py)
    C("GRU-input-size", "pdt.nn.GRU(4, 5)(t)", "pydevtensor.InvalidArgumentError",
      r"GRU: expected input of size 4 \(input_size\) in its last dimension, got 3 in an "
      r"input of shape \(2, 3\) \(on cpu\)"),
    C("LSTM-h0-shape", "pdt.nn.LSTM(3, 5)(t, (pdt.zeros(1, 5), pdt.zeros(2, 5)))",
      "pydevtensor.InvalidArgumentError", r"LSTM: expected c0 of shape \(1, 5\) "
      r"\(num_layers \* num_directions, hidden_size\), got \(2, 5\)"),
    C("RNN-other-device", 'pdt.nn.RNN(3, 5)(t.to("cpu:1"))', "pydevtensor.DeviceError",
      r"RNN: the input is on cpu:1 but the module's parameters are on cpu(:0)?",
      setup=TWO_CPUS),
    C("GRU-h0-other-device", 'pdt.nn.GRU(3, 5)(t, pdt.zeros(1, 5, device="cpu:1"))',
      "pydevtensor.DeviceError", r"GRU: the input is on cpu(:0)? but h0 is on cpu:1",
      setup=TWO_CPUS),
    C("RNN-dtype", "pdt.nn.RNN(3, 5)(t.double())", "pydevtensor.InvalidArgumentError",
      r"RNN: RNN input dtype \(pydevtensor\.float64\) does not match weight dtype "
      r"\(pydevtensor\.float32\) \(on cpu(:0)?\)"),
    C("RNNCell-dtype", "pdt.nn.RNNCell(3, 5)(t.double())", "pydevtensor.InvalidArgumentError",
      r"RNNCell: the input is pydevtensor\.float64 but the module's parameters are "
      r"pydevtensor\.float32"),
    C("GRU-input_size-0", "pdt.nn.GRU(0, 5)", "ValueError",
      r"GRU: input_size must be greater than zero, got 0"),
    C("LSTM-proj_size", "pdt.nn.LSTM(3, 5, proj_size=5)", "ValueError",
      r"LSTM: proj_size has to be smaller than hidden_size, got proj_size=5 and "
      r"hidden_size=5"),
    C("LSTM-proj_size-h0", "pdt.nn.LSTM(3, 5, proj_size=2)(pdt.ones(4, 1, 3), "
      "(pdt.zeros(1, 1, 5), pdt.zeros(1, 1, 5)))", "ValueError",
      r"expected h0 of shape \(1, 1, 2\) \(num_layers \* num_directions, N, proj_size\)"),
    C("GRUCell-4d", "pdt.nn.GRUCell(3, 5)(t.reshape(1, 1, 2, 3))",
      "pydevtensor.InvalidArgumentError", r"GRUCell: expected input to be 1-D \(H_in\) or "
      r"2-D \(N, H_in\), got 4-D input of shape \(1, 1, 2, 3\) \(on cpu\)"),

    # ---- more activations, losses and layers with PyTorch's names
    C("hardswish-int", "pdt.nn.functional.hardswish(pdt.tensor([3]))", "NotImplementedError",
      r"hardswish\(\): expected a floating point tensor, got pydevtensor.int64 on cpu"),
    C("Hardsigmoid-list", "pdt.nn.Hardsigmoid()([1.0])", "TypeError",
      r"hardsigmoid\(\): input must be a Tensor, got list"),
    C("Hardshrink-lambd-str", "pdt.nn.Hardshrink('0.5')", "TypeError",
      r"Hardshrink\(\): lambd must be a number, got str"),
    C("softshrink-negative", "pdt.nn.functional.softshrink(t, -1.0)", "ValueError",
      r"softshrink\(\): lambd must be >= 0, got -1.0"),
    C("threshold-value-none", "pdt.nn.functional.threshold(t, 0.5, None)", "TypeError",
      r"threshold\(\): value must be a number, got NoneType"),
    C("Threshold-bool-input", "pdt.nn.Threshold(0.1, 2.0)(tb)", "NotImplementedError",
      r"threshold\(\): expected a floating point tensor, got pydevtensor.bool on cpu"),
    C("selu-int", "pdt.nn.SELU()(ti)", "NotImplementedError",
      r"selu\(\): expected a floating point tensor, got pydevtensor.int32 on cpu"),
    C("celu-alpha-zero", "pdt.nn.CELU(0.0)(t)", "ValueError", r"celu\(\): alpha cannot be 0"),
    C("softsign-bool", "pdt.nn.functional.softsign(ti > 0)", "NotImplementedError",
      r"softsign\(\): expected a floating point tensor"),
    C("Tanhshrink-str", "pdt.nn.Tanhshrink()('x')", "TypeError",
      r"tanhshrink\(\): input must be a Tensor, got str"),
    C("rrelu-bounds", "pdt.nn.functional.rrelu(t, 0.5, 0.1, training=True)", "ValueError",
      r"rrelu\(\): lower must be <= upper, got lower=0.5 and upper=0.1"),
    C("prelu-weight-size", "pdt.nn.functional.prelu(t, pdt.ones(2))", "ValueError",
      r"prelu\(\): mismatch of parameter numbers and input channel size: weight has 2 "
      r"elements, the input of shape \(2, 3\) has 3 channels \(on cpu\)"),
    C("prelu-weight-2d", "pdt.nn.functional.prelu(t, pdt.ones(1, 3))", "ValueError",
      r"prelu\(\): Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2 \(shape "
      r"\(1, 3\), on cpu\)"),
    C("PReLU-other-device", 'pdt.nn.PReLU(3)(pdt.ones(2, 3, device="cpu:1"))',
      "pydevtensor.DeviceError", r"cpu:1", setup=TWO_CPUS),
    C("PReLU-zero", "pdt.nn.PReLU(0)", "ValueError", r"PReLU: num_parameters must be >= 1, got 0"),
    C("glu-odd", "pdt.nn.GLU()(t)", "RuntimeError",
      r"glu\(\): halving dimension must be even, but dimension 1 is size 3 in the input of "
      r"shape \(2, 3\) \(on cpu\)"),
    C("softmin-dim", "pdt.nn.functional.softmin(t, 5)", "IndexError",
      r"softmin\(\): Dimension out of range \(expected to be in range of \[-2, 1\], but "
      r"got 5\) \(a tensor of shape \(2, 3\) on cpu\)"),
    C("Softmax2d-2d", "pdt.nn.Softmax2d()(t)", "ValueError",
      r"Softmax2d: expected input to be 3D or 4D, got 2D instead \(shape \(2, 3\) on cpu\)"),
    C("relu-inplace-leaf", "pdt.nn.functional.relu(pdt.ones(2, requires_grad=True), "
      "inplace=True)", "RuntimeError", r"leaf"),
    C("margin_ranking_loss-dims", "pdt.nn.functional.margin_ranking_loss(t, t, pdt.ones(2))",
      "RuntimeError", r"margin_ranking_loss\(\): all input tensors should have the same number "
      r"of dimensions, but got sizes: input1 \(2, 3\), input2 \(2, 3\), target \(2,\) "
      r"\(on cpu\)"),
    C("MarginRankingLoss-other-device",
      'pdt.nn.MarginRankingLoss()(t, pdt.ones(2, 3, device="cpu:1"), t)',
      "pydevtensor.DeviceError", r"cpu:0 and cpu:1", setup=TWO_CPUS),
    C("hinge_embedding_loss-shapes", "pdt.nn.HingeEmbeddingLoss()(t, pdt.ones(4))",
      "ValueError", r"hinge_embedding_loss\(\): the shapes do not broadcast: input \(2, 3\), "
      r"target \(4,\) \(on cpu\)"),
    C("multilabel_soft_margin_loss-bool-target", "pdt.nn.MultiLabelSoftMarginLoss()(t, "
      "pdt.ones(2, 3, dtype=pdt.bool))", "TypeError",
      r"multilabel_soft_margin_loss\(\): target must be floating point, got pydevtensor.bool "
      r"on cpu"),
    C("binary_cross_entropy-dtypes", "pdt.nn.functional.binary_cross_entropy(t.sigmoid(), "
      "t.sigmoid().double())", "RuntimeError",
      r"binary_cross_entropy\(\): input \(pydevtensor.float32\) and target "
      r"\(pydevtensor.float64\) must have one dtype, of shape \(2, 3\) on cpu"),
    C("SoftMarginLoss-reduction", "pdt.nn.SoftMarginLoss(reduction='avg')", "ValueError",
      r"SoftMarginLoss: reduction must be 'mean', 'sum' or 'none', got 'avg'"),
    C("cosine_embedding_loss-target", "pdt.nn.functional.cosine_embedding_loss(t, t, "
      "pdt.ones(3))", "ValueError", r"cosine_embedding_loss\(\): expected inputs \(N, D\) "
      r"with target \(N,\), or \(D,\) with a 0-d target; got input1 \(2, 3\), input2 \(2, 3\) "
      r"and target \(3,\) \(on cpu\)"),
    C("CosineEmbeddingLoss-margin-str", "pdt.nn.CosineEmbeddingLoss('0')", "TypeError",
      r"CosineEmbeddingLoss: margin must be a number, got str"),
    C("triplet_margin_loss-margin", "pdt.nn.functional.triplet_margin_loss(t, t, t, margin=-1)",
      "ValueError", r"triplet_margin_loss\(\): margin must be greater than 0, got -1.0"),
    C("triplet_margin_with_distance_loss-margin",
      "pdt.nn.functional.triplet_margin_with_distance_loss(t, t, t, margin=0)", "ValueError",
      r"triplet_margin_with_distance_loss\(\): margin must be greater than 0, got 0.0"),
    C("triplet_margin_with_distance_loss-distance",
      "pdt.nn.functional.triplet_margin_with_distance_loss(t, t, t, distance_function=2)",
      "TypeError", r"distance_function must be callable or None, got int"),
    C("TripletMarginWithDistanceLoss-margin", "pdt.nn.TripletMarginWithDistanceLoss(margin=-1)",
      "ValueError", r"TripletMarginWithDistanceLoss: expected margin to be greater than 0, "
      r"got -1.0 instead"),
    C("ctc_loss-input-lengths", "pdt.nn.functional.ctc_loss(pdt.zeros(2, 1, 3), "
      "pdt.tensor([[1]]), (3,), (1,))", "ValueError",
      r"ctc_loss\(\): input_lengths must lie in \[0, 2\], got 3"),
    C("CTCLoss-blank", "pdt.nn.CTCLoss(blank=3)(pdt.zeros(2, 1, 3), pdt.tensor([[1]]), (2,), "
      "(1,))", "ValueError", r"ctc_loss\(\): blank must be in the label range \[0, 3\), got 3"),
    C("triplet_margin_loss-dims", "pdt.nn.functional.triplet_margin_loss(t, t, pdt.ones(3))",
      "RuntimeError", r"anchor 2D, positive 2D, and negative 1D inputs \(shapes \(2, 3\), "
      r"\(2, 3\), \(3,\) on cpu\)"),
    C("TripletMarginLoss-margin", "pdt.nn.TripletMarginLoss(margin=-1)", "ValueError",
      r"TripletMarginLoss: expected margin to be greater than 0, got -1 instead"),
    C("multi_margin_loss-p", "pdt.nn.functional.multi_margin_loss(t, pdt.tensor([0, 1]), p=3)",
      "ValueError", r"only p == 1 and p == 2 supported, got p=3"),
    C("MultiMarginLoss-target-range", "pdt.nn.MultiMarginLoss()(t, pdt.tensor([0, 3]))",
      "IndexError", r"multi_margin_loss\(\): target 3 is out of range for 3 classes \(input "
      r"of shape \(2, 3\) on cpu\)"),
    C("MultiMarginLoss-target-device",
      'pdt.nn.MultiMarginLoss()(t, pdt.tensor([0, 1], device="cpu:1"))',
      "pydevtensor.DeviceError", r"target is on cpu:1 and input on cpu(:0)?", setup=TWO_CPUS),
    C("multi_margin_loss-weight-2d", "pdt.nn.functional.multi_margin_loss(t, pdt.tensor([0, 1]), "
      "weight=pdt.ones(1, 3))", "ValueError", r"weight must be one-dimensional, got shape "
      r"\(1, 3\)"),
    C("multilabel_margin_loss-shape", "pdt.nn.MultiLabelMarginLoss()(t, pdt.tensor([0, 1]))",
      "ValueError", r"multilabel_margin_loss\(\): target of shape \(2,\) does not fit input of "
      r"shape \(2, 3\) \(on cpu\): expected \(2, 3\)"),
    C("multilabel_margin_loss-float-target",
      "pdt.nn.functional.multilabel_margin_loss(t, t)", "TypeError",
      r"target must hold integer class indices \(int64 or int32\), got pydevtensor.float32"),
    C("multilabel_soft_margin_loss-weight-dtype", "pdt.nn.MultiLabelSoftMarginLoss("
      "pdt.ones(3, dtype=pdt.float64))(t, t)", "TypeError",
      r"weight is pydevtensor.float64 but input is pydevtensor.float32 \(on cpu\)"),
    C("poisson_nll_loss-shapes", "pdt.nn.PoissonNLLLoss()(t, pdt.ones(3, 2))", "ValueError",
      r"poisson_nll_loss\(\): the shapes do not broadcast: input \(2, 3\), target \(3, 2\)"),
    C("gaussian_nll_loss-var-size", "pdt.nn.GaussianNLLLoss()(t, t, pdt.ones(3))",
      "ValueError", r"gaussian_nll_loss\(\): var is of incorrect size: \(3,\) for input of "
      r"shape \(2, 3\) \(on cpu\)"),
    C("gaussian_nll_loss-var-negative", "pdt.nn.functional.gaussian_nll_loss(t, t, -t - 1)",
      "ValueError", r"var has negative entry/entries \(shape \(2, 3\) on cpu\)"),
    C("GaussianNLLLoss-positional", "pdt.nn.GaussianNLLLoss(True)", "TypeError", r"positional"),
    C("cross_entropy-probabilities-shape",
      "pdt.nn.functional.cross_entropy(t, pdt.ones(2, 2))", "ValueError",
      r"a floating-point target holds class probabilities and must have input's shape, "
      r"\(N, C\) or \(C,\): got input \(2, 3\) and target \(2, 2\) on cpu"),
    C("CrossEntropyLoss-probabilities-ignore_index",
      "pdt.nn.CrossEntropyLoss(ignore_index=0)(t, t)", "ValueError",
      r"ignore_index is not supported for floating point target"),
    C("cdist-1d", "pdt.cdist(pdt.ones(3), t)", "ValueError",
      r"cdist\(\): cdist only supports at least 2-d tensors, x1 has shape \(3,\) \(on cpu\)"),
    C("cdist-columns", "pdt.cdist(t, pdt.ones(2, 2))", "RuntimeError",
      r"x1 and x2 must have the same number of columns: x1 \(2, 3\) and x2 \(2, 2\) \(on cpu\)"),
    C("cdist-p", "pdt.cdist(t, t, p=-1.0)", "ValueError",
      r"cdist only supports non-negative p values, got -1.0"),
    C("cdist-int", "pdt.cdist(ti.reshape(2, 3), t)", "TypeError",
      r"cdist only supports floating-point dtypes, x1 is pydevtensor.int32 on cpu"),
    C("cdist-other-device", 'pdt.cdist(t, pdt.ones(2, 3, device="cpu:1"))',
      "pydevtensor.DeviceError", r"cdist\(\): .*cpu(:0)? and cpu:1", setup=TWO_CPUS),
    C("bilinear-shapes", "pdt.nn.functional.bilinear(t, t, pdt.ones(4, 3, 2))", "RuntimeError",
      r"bilinear\(\): the inputs' last dimensions must be the weight's \(3 and 2\); got input1 "
      r"\(2, 3\), input2 \(2, 3\), weight \(4, 3, 2\) \(on cpu\)"),
    C("Bilinear-other-device", 'pdt.nn.Bilinear(3, 3, 2)(t, pdt.ones(2, 3, device="cpu:1"))',
      "pydevtensor.DeviceError", r"cpu:1", setup=TWO_CPUS),
    C("Bilinear-float-size", "pdt.nn.Bilinear(3, 3.0, 2)", "TypeError",
      r"Bilinear: in2_features must be an int, got float"),
    C("channel_shuffle-groups", "pdt.nn.functional.channel_shuffle(pdt.ones(2, 3, 2), 2)",
      "RuntimeError", r"channel_shuffle\(\): the number of channels must be divisible by "
      r"groups: 3 channels and 2 groups \(input of shape \(2, 3, 2\) on cpu\)"),
    C("ChannelShuffle-2d", "pdt.nn.ChannelShuffle(3)(t)", "ValueError",
      r"expected an input with more than 2 dimensions \(N, C, \*\), got shape \(2, 3\)"),
    C("Unflatten-sizes", "pdt.nn.Unflatten(1, (2, 2))(t)", "RuntimeError",
      r"Unflatten: provided sizes \[2, 2\] don't multiply up to the size of dim 1 \(3\) in the "
      r"input tensor of shape \(2, 3\) \(on cpu\)"),
    C("Unflatten-float-size", "pdt.nn.Unflatten(1, (1.5, 2))", "TypeError",
      r"unflattened_size must be tuple of ints, but found element of type float at pos 0"),
    C("CosineSimilarity-shapes", "pdt.nn.CosineSimilarity()(t, pdt.ones(4, 3))", "ValueError",
      r"cosine_similarity\(\): the shapes \(2, 3\) and \(4, 3\) do not broadcast"),
    C("PairwiseDistance-bool", "pdt.nn.PairwiseDistance()(ti > 0, ti > 0)", "TypeError",
      r"pairwise_distance\(\): x1 must be floating point, got pydevtensor.bool \(on cpu\)"),
    C("Embedding-from_pretrained-1d", "pdt.nn.Embedding.from_pretrained(pdt.ones(3))",
      "ValueError", r"embeddings parameter is expected to be 2-dimensional, got shape \(3,\) "
      r"\(on cpu\)"),
    C("Embedding-max_norm-str", "pdt.nn.Embedding(3, 2, max_norm='1')", "TypeError",
      r"Embedding: max_norm must be a number, got str"),
    C("embedding-sparse", "pdt.nn.functional.embedding(pdt.tensor([0]), t, sparse=True)",
      "NotImplementedError", r"sparse=True is not supported"),
    C("Embedding-max_norm-bad-index-no-change",
      "e = pdt.nn.Embedding(3, 2, max_norm=0.1)\nw = e.weight.detach().clone()\n"
      "try:\n    e(pdt.tensor([0, 5]))\nexcept IndexError:\n    pass\n"
      "assert bool((e.weight == w).all())\ne(pdt.tensor([9]))", "IndexError", r"9"),

    # ---- utils.data
    C("TensorDataset-sizes", "pdt.utils.data.TensorDataset(t, pdt.zeros(3))", "ValueError",
      r"TensorDataset\(\): the tensors' first dimensions differ: sizes \[2, 3\]"),
    C("StackDataset-sizes", "pdt.utils.data.StackDataset(x=[1, 2], y=[1, 2, 3])", "ValueError",
      r"Size mismatch between datasets: lengths \[2, 3\]"),
    C("StackDataset-both-forms", "pdt.utils.data.StackDataset([1], y=[1])", "ValueError",
      r"but both types are given"),
    C("TensorDataset-ndarray", "pdt.utils.data.TensorDataset(t, a)", "TypeError",
      r"TensorDataset\(\): argument 1 must be a Tensor, got ndarray"),
    C("TensorDataset-0d", "pdt.utils.data.TensorDataset(pdt.tensor(1.0))", "ValueError",
      r"argument 0 is 0-d \(on cpu\)"),
    C("DataLoader-batch-zero", "pdt.utils.data.DataLoader(pdt.utils.data.TensorDataset(t), 0)",
      "ValueError", r"DataLoader\(\): batch_size must be >= 1 \(or None\), got 0"),
    C("DataLoader-batch-float", "pdt.utils.data.DataLoader(pdt.utils.data.TensorDataset(t), 2.5)",
      "ValueError", r"DataLoader\(\): batch_size must be an int, got float"),
    C("DataLoader-not-a-dataset", "pdt.utils.data.DataLoader(3)", "TypeError",
      r"dataset must have __getitem__ and __len__ \(a Dataset; __getitem__ alone with a "
      r"sampler or batch_sampler\), or be an IterableDataset; got int"),
    C("DataLoader-generator", "pdt.utils.data.DataLoader(pdt.utils.data.TensorDataset(t), "
      "generator=object())", "TypeError",
      r"generator must be a pydevtensor.Generator or None, got object"),
    C("random_split-sum", "pdt.utils.data.random_split(pdt.utils.data.TensorDataset(t), [1, 2])",
      "ValueError", r"random_split\(\): the lengths \[1, 2\] do not add up to the dataset's 2"),
    C("random_split-str", 'pdt.utils.data.random_split(pdt.utils.data.TensorDataset(t), ["1"])',
      "TypeError", r"lengths must be ints or fractions, got str"),
    C("default_collate-object", "pdt.utils.data.default_collate([object()])", "TypeError",
      r"a sample must hold Tensors.*found object"),
]
