"""The bad-input catalogue's cases for nn (nn.utils.rnn, parameters_to_vector,
utils.checkpoint, Module's state_dict, hooks and containers, layers, losses, init) and
optim, split from bad_input_cases_training.py (save/load and data stay there).
tests/bad_input_cases.py (where Case is) adds them to CASES; tests/test_bad_input.py
runs them."""
from bad_input_cases import C, TWO_CPUS

NN_API_CASES = [
    # ---- nn.RNNBase's hooks (nn/_rnn_checks.py)
    C("rnn-check_hidden_size", "pdt.nn.RNN(3, 4).check_hidden_size(pdt.zeros(1, 2, 5), "
      "(1, 2, 4))", "RuntimeError", r"^Expected hidden size \(1, 2, 4\), got \[1, 2, 5\]$"),
    C("lstm-check_forward_args-cell", "pdt.nn.LSTM(3, 4).check_forward_args(pdt.ones(5, 2, 3), "
      "(pdt.zeros(1, 2, 4), pdt.zeros(1, 2, 3)), None)", "RuntimeError",
      r"^Expected hidden\[1\] size \(1, 2, 4\), got \[1, 2, 3\]$"),
    C("gru-check_input-unbatched", "pdt.nn.GRU(3, 4).check_input(pdt.ones(5, 3), None)",
      "RuntimeError", r"GRU: expected input to be 3-D \(L, N, H_in\), got 2-D input of shape "
      r"\(5, 3\) \(on cpu\)"),
    # ---- nn.utils.parametrize / parametrizations
    C("parametrize-no-such-tensor", "pdt.nn.utils.parametrize.register_parametrization("
      "pdt.nn.Linear(2, 2), 'w', pdt.nn.Identity())", "ValueError",
      r"does not have a parameter, a buffer, or a parametrized element with name 'w'"),
    C("parametrize-changes-shape", "pdt.nn.utils.parametrize.register_parametrization("
      "pdt.nn.Linear(2, 2), 'weight', pdt.nn.Flatten(0))", "ValueError",
      r"may not change the shape of the tensor, unless `unsafe` flag is enabled"),
    C("parametrize-remove-unparametrized",
      "pdt.nn.utils.parametrize.remove_parametrizations(pdt.nn.Linear(2, 2), 'weight')",
      "ValueError", r"does not have a parametrization on weight"),
    C("parametrize-assign-without-right-inverse",
      "m = pdt.nn.utils.parametrize.register_parametrization(pdt.nn.Linear(2, 2), 'weight', "
      "pdt.nn.ReLU())\nm.weight = pdt.ones(2, 2)", "RuntimeError",
      r"parametrization ReLU does not implement right_inverse"),
    C("transfer_parametrizations_and_params-not-parametrized",
      "P = pdt.nn.utils.parametrize\n"
      "a = P.register_parametrization(pdt.nn.Linear(2, 2), 'weight', pdt.nn.Identity())\n"
      "P.transfer_parametrizations_and_params(a, pdt.nn.Linear(2, 2), 'bias')", "KeyError",
      r"bias"),
    C("orthogonal-vector", "pdt.nn.utils.parametrizations.orthogonal(pdt.nn.Linear(2, 2), "
      "'bias')", "ValueError", r"Expected a matrix or batch of matrices. Got a tensor of 1 "
      r"dimensions"),
    C("orthogonal-map", "pdt.nn.utils.parametrizations.orthogonal(pdt.nn.Linear(2, 2), "
      "orthogonal_map='qr')", "ValueError", r'has to be one of "matrix_exp", "cayley", '
      r'"householder". Got: qr'),
    C("orthogonal-half", "pdt.nn.utils.parametrizations.orthogonal(pdt.nn.Linear(2, 2).half())",
      "NotImplementedError", r"orthogonal\(\): weight of pydevtensor.float16 is not supported"),
    C("spectral-norm-iterations", "pdt.nn.utils.parametrizations.spectral_norm("
      "pdt.nn.Linear(2, 2), n_power_iterations=0)", "ValueError",
      r"Expected n_power_iterations to be positive, but got n_power_iterations=0"),
    C("spectral-norm-dim", "pdt.nn.utils.parametrizations.spectral_norm(pdt.nn.Linear(2, 2), "
      "dim=2)", "IndexError", r"Dimension out of range \(expected to be in range of \[-2, 1\] "
      r"but got 2\)"),
    C("weight-norm-param-no-such-tensor",
      "pdt.nn.utils.parametrizations.weight_norm(pdt.nn.Linear(2, 2), 'w')", "ValueError",
      r"does not have a parameter, a buffer, or a parametrized element with name 'w'"),
    # ---- nn.utils.prune
    C("prune-amount-negative", "pdt.nn.utils.prune.l1_unstructured(pdt.nn.Linear(2, 2), "
      "'weight', amount=-1)", "ValueError", r"amount=-1 should either be a float in the range "
      r"\[0, 1\] or a non-negative integer"),
    C("prune-amount-type", "pdt.nn.utils.prune.random_unstructured(pdt.nn.Linear(2, 2), "
      "'weight', amount='a')", "TypeError", r"Invalid type for amount: 'a'. Must be int or "
      r"float"),
    C("prune-amount-too-many", "pdt.nn.utils.prune.l1_unstructured(pdt.nn.Linear(2, 2), "
      "'weight', amount=5)", "ValueError", r"amount=5 should be smaller than the number of "
      r"parameters to prune=4"),
    C("prune-structured-vector", "pdt.nn.utils.prune.ln_structured(pdt.nn.Linear(2, 2), "
      "'bias', amount=1, n=2, dim=0)", "ValueError", r"Structured pruning can only be "
      r"applied to multidimensional tensors. Found tensor of shape \(2,\) with 1 dims"),
    C("prune-nuclear-norm-dims", "pdt.nn.utils.prune.ln_structured(pdt.nn.Linear(2, 2), "
      "'weight', amount=1, n='nuc', dim=0)", "ValueError", r"n='nuc' takes the nuclear norm "
      r"of each channel as a matrix, so the tensor must have 3 dims; got shape \(2, 2\)"),
    C("prune-structured-dim", "pdt.nn.utils.prune.random_structured(pdt.nn.Linear(2, 2), "
      "'weight', amount=1, dim=2)", "IndexError", r"Invalid index 2 for tensor of size "
      r"\(2, 2\)"),
    C("prune-scores-shape", "pdt.nn.utils.prune.l1_unstructured(pdt.nn.Linear(2, 2), "
      "'weight', 1, importance_scores=pdt.ones(3))", "ValueError", r"importance_scores should "
      r"have the same shape as parameter weight of Linear, got \(3,\) vs \(2, 2\)"),
    C("prune-mask-shape", "pdt.nn.utils.prune.custom_from_mask(pdt.nn.Linear(2, 2), "
      "'weight', pdt.ones(3))", "ValueError", r"the mask's shape \(3,\) must be the pruned "
      r"tensor's, \(2, 2\)"),
    C("prune-remove-unpruned", "pdt.nn.utils.prune.remove(pdt.nn.Linear(2, 2), 'weight')",
      "ValueError", r"Parameter 'weight' of module Linear has to be pruned before pruning "
      r"can be removed"),
    C("prune-global-structured", "pdt.nn.utils.prune.global_unstructured("
      "[(pdt.nn.Linear(2, 2), 'weight')], pdt.nn.utils.prune.RandomStructured, amount=1)",
      "TypeError", r'Only "unstructured" PRUNING_TYPE supported'),
    # ---- nn.utils.fusion
    C("fuse-conv-bn-training", "pdt.nn.utils.fuse_conv_bn_eval(pdt.nn.Conv2d(3, 4, 1), "
      "pdt.nn.BatchNorm2d(4).eval())", "AssertionError", r"Fusion only for eval!"),
    C("fuse-linear-bn-features", "pdt.nn.utils.fuse_linear_bn_eval(pdt.nn.Linear(3, 4).eval(), "
      "pdt.nn.BatchNorm1d(3).eval())", "AssertionError", r"To fuse, linear.out_features == "
      r"bn.num_features or bn.num_features == 1, got linear.out_features=4 and "
      r"bn.num_features=3"),
    C("pack-unsorted", "pdt.nn.utils.rnn.pack_padded_sequence(pdt.zeros(3, 2, 1), [2, 3])",
      "RuntimeError", r"`lengths` array must be sorted in decreasing order"),
    C("pack-lengths-count", "pdt.nn.utils.rnn.pack_padded_sequence(pdt.zeros(3, 2, 1), [3])",
      "RuntimeError", r"Expected `len\(lengths\)` to be equal to batch_size, but got 1"),
    C("pad-sequence-side", "pdt.nn.utils.rnn.pad_sequence([pdt.ones(2)], padding_side='up')",
      "ValueError", r"Expected padding_side to be one of left or right, but got up"),
    C("pad-packed-total-length", "pdt.nn.utils.rnn.pad_packed_sequence("
      "pdt.nn.utils.rnn.pack_sequence([pdt.ones(3)]), total_length=2)", "ValueError",
      r"Expected total_length to be at least the length of the longest sequence"),
    C("vector-to-parameters-size", "pdt.nn.utils.vector_to_parameters(pdt.ones(2), "
      "pdt.nn.Linear(2, 1).parameters())", "ValueError",
      r"vec must be 1-D with at least the parameters' 3 elements, got shape \(2,\)"),
    C("state-dict-prefix-int", "pdt.nn.Linear(1, 1).state_dict(prefix=3)", "TypeError",
      r"prefix must be a str, got int"),
    C("get-submodule-missing", "pdt.nn.Sequential(pdt.nn.ReLU()).get_submodule('0.x')",
      "AttributeError", r"ReLU has no attribute `x`"),
    C("set-submodule-strict-missing", "pdt.nn.Sequential(pdt.nn.ReLU()).set_submodule("
      "'act', pdt.nn.Tanh(), strict=True)", "AttributeError",
      r"Sequential has no attribute `act`"),
    C("set-submodule-not-module", "pdt.nn.Sequential(pdt.nn.ReLU()).set_submodule('0', 3)",
      "ValueError", r"`module` is not an nn.Module, found int"),
    C("Buffer-not-tensor", "pdt.nn.Buffer([1.0])", "TypeError",
      r"Buffer\(data\) needs a Tensor, got list"),
    C("forward-hook-not-callable", "pdt.nn.ReLU().register_forward_hook(3)", "TypeError",
      r"hook must be callable, got int"),
    C("sequential-insert-range", "pdt.nn.Sequential(pdt.nn.ReLU()).insert(5, pdt.nn.ReLU())",
      "IndexError", r"index 5 is out of range for a Sequential of 1"),
    C("optimizer-step-pre-hook-not-callable",
      "pdt.optim.optimizer.register_optimizer_step_pre_hook(3)", "TypeError",
      r"register_optimizer_step_pre_hook\(\): the hook must be callable, got int"),
    C("adam-fused-foreach", "pdt.optim.Adam([pdt.nn.Parameter(pdt.ones(1))], fused=True, "
      "foreach=True)", "RuntimeError", r"`fused` and `foreach` cannot be `True` together"),
    # optimnames: the schedulers, optimizers and clipping helpers PyTorch 2.x adds
    C("ConstantLR-factor", "pdt.optim.lr_scheduler.ConstantLR(pdt.optim.SGD("
      "[pdt.nn.Parameter(pdt.ones(1))], lr=0.1), factor=1.5)", "ValueError",
      r"ConstantLR: Constant multiplicative factor expected to be between 0 and 1, got "
      r"factor=1.5"),
    C("PolynomialLR-total-iters", "pdt.optim.lr_scheduler.PolynomialLR(pdt.optim.SGD("
      "[pdt.nn.Parameter(pdt.ones(1))], lr=0.1), total_iters=-2)", "ValueError",
      r"PolynomialLR: total_iters must be >= 0, got -2"),
    C("MultiplicativeLR-lambdas", "pdt.optim.lr_scheduler.MultiplicativeLR(pdt.optim.SGD("
      "[pdt.nn.Parameter(pdt.ones(1))], lr=0.1), [abs, abs])", "ValueError",
      r"MultiplicativeLR: Expected 1 lr_lambdas, but got 2"),
    C("CyclicLR-mode", "pdt.optim.lr_scheduler.CyclicLR(pdt.optim.SGD("
      "[pdt.nn.Parameter(pdt.ones(1))], lr=0.1, momentum=0.9), 0.1, 1.0, mode='cosine')",
      "ValueError", r"CyclicLR: mode is invalid and scale_fn is None: mode must be "
      r"'triangular', 'triangular2' or 'exp_range', got 'cosine'"),
    C("CyclicLR-no-momentum", "pdt.optim.lr_scheduler.CyclicLR(pdt.optim.Adagrad("
      "[pdt.nn.Parameter(pdt.ones(1))]), 0.1, 1.0)", "ValueError",
      r"CyclicLR: optimizer must support momentum or beta1 with `cycle_momentum` option "
      r"enabled \(Adagrad has neither\)"),
    C("CyclicLR-step-size", "pdt.optim.lr_scheduler.CyclicLR(pdt.optim.SGD("
      "[pdt.nn.Parameter(pdt.ones(1))], lr=0.1), 0.1, 1.0, step_size_up=0, "
      "cycle_momentum=False)", "ValueError",
      r"CyclicLR: step_size_up must be > 0 and step_size_down >= 0, got step_size_up=0"),
    C("Rprop-etas", "pdt.optim.Rprop([pdt.nn.Parameter(pdt.ones(2))], etas=(0.5, 0.9))",
      "ValueError", r"Rprop: Invalid eta values: 0.5, 0.9 \(they must satisfy 0 < etaminus "
      r"< 1 < etaplus\)"),
    C("Rprop-lr", "pdt.optim.Rprop([pdt.nn.Parameter(pdt.ones(2))], lr=-1e-2)", "ValueError",
      r"Rprop: Invalid learning rate: -0.01 \(it must be >= 0\)"),
    C("Rprop-step-sizes", "pdt.optim.Rprop([pdt.nn.Parameter(pdt.ones(2))], step_sizes=(1,))",
      "TypeError", r"Rprop: step_sizes must be a pair of numbers, got \(1,\)"),
    C("ASGD-lambd", "pdt.optim.ASGD([pdt.nn.Parameter(pdt.ones(2))], lambd=-1e-4)",
      "ValueError", r"ASGD: Invalid lambd value: -0.0001 \(it must be >= 0\)"),
    C("ASGD-weight-decay", "pdt.optim.ASGD([pdt.nn.Parameter(pdt.ones(2))], weight_decay=-1)",
      "ValueError", r"ASGD: Invalid weight_decay value: -1 \(it must be >= 0\)"),
    C("ASGD-closure", "pdt.optim.ASGD([pdt.nn.Parameter(pdt.ones(2))]).step('loss')",
      "TypeError", r"step\(\): closure must be callable .*got str"),
    C("LBFGS-line-search", "pdt.optim.LBFGS([pdt.nn.Parameter(pdt.ones(2))], "
      "line_search_fn='backtracking')", "ValueError", r"LBFGS: only 'strong_wolfe' is "
      r"supported as line_search_fn \(or None\), got 'backtracking'"),
    C("LBFGS-groups", "pdt.optim.LBFGS([{'params': [pdt.nn.Parameter(pdt.ones(2))]}, "
      "{'params': [pdt.nn.Parameter(pdt.ones(1))]}])", "ValueError",
      r"LBFGS doesn't support per-parameter options \(parameter groups\)"),
    C("LBFGS-no-closure", "pdt.optim.LBFGS([pdt.nn.Parameter(pdt.ones(2))]).step()",
      "TypeError", r"LBFGS.step\(\) needs a closure .*got NoneType"),
    C("LBFGS-history-size", "pdt.optim.LBFGS([pdt.nn.Parameter(pdt.ones(2))], "
      "history_size=0)", "ValueError", r"LBFGS: history_size must be >= 1, got 0"),
    C("data_parallel-module", "pdt.nn.parallel.data_parallel(3, pdt.ones(2), device_ids=['cpu'])",
      "TypeError", r"data_parallel\(\): expected an nn.Module, got int"),
    C("comm-reduce_add-shapes", "pdt.nn.parallel.comm.reduce_add([pdt.ones(2), pdt.ones(3)], "
      "destination=-1)", "ValueError", r"comm.reduce_add\(\): input 1 has shape \(3,\) on "
      r"cpu, input 0 \(2,\) on cpu"),
    C("comm-broadcast-neither", "pdt.cuda.comm.broadcast(pdt.ones(2))", "RuntimeError",
      r"comm.broadcast\(\): Exactly one of 'devices' and 'out' must be specified, got "
      r"neither"),
    C("comm-scatter-chunks", "pdt.nn.parallel.comm.scatter(pdt.ones(4), ['cpu'], "
      "chunk_sizes=[3])", "ValueError", r"chunk_sizes \[3\] must have one size per device "
      r"and sum to the tensor's size 4 along dim 0 \(shape \(4,\)\)"),
    C("ChainedScheduler-empty", "pdt.optim.lr_scheduler.ChainedScheduler([])", "ValueError",
      r"ChainedScheduler expects at least one scheduler to be chained, but got no scheduler"),
    C("ChainedScheduler-plateau", "opt = pdt.optim.SGD([pdt.nn.Parameter(pdt.ones(1))], lr=0.1)"
      "\npdt.optim.lr_scheduler.ChainedScheduler([pdt.optim.lr_scheduler.ReduceLROnPlateau("
      "opt)])", "ValueError", r"ChainedScheduler does not support `ReduceLROnPlateau` "
      r"scheduler .* at index 0"),
    C("checkpoint-not-callable", "pdt.utils.checkpoint.checkpoint(3, use_reentrant=False)",
      "TypeError", r"function must be callable, got int"),
    C("checkpoint-determinism_check", "pdt.utils.checkpoint.checkpoint(lambda t: t, "
      "pdt.ones(2, requires_grad=True), use_reentrant=False, determinism_check='all')",
      "ValueError", r"determinism_check should be one of \['default', 'none'\], but got 'all'"),
    C("checkpoint-reentrant-debug", "pdt.utils.checkpoint.checkpoint(lambda t: t, "
      "pdt.ones(2, requires_grad=True), use_reentrant=True, debug=True)",
      "ValueError", r"context_fn or debug is only supported when use_reentrant=False"),
    C("Linear-input-dtype", "pdt.nn.Linear(3, 4)(pdt.zeros(2, 3, dtype=pdt.float64))",
      "TypeError", r"the input is pydevtensor\.float64 but the parameter 'weight' is "
      r"pydevtensor\.float32.*in layer Linear\(in_features=3"),
    C("Linear-input-int64", "pdt.nn.Linear(3, 4)(pdt.zeros(2, 3, dtype=pdt.int64))",
      "TypeError", r"the input is pydevtensor\.int64 but the parameter 'weight' is "
      r"pydevtensor\.float32; convert the input with \.to\(pydevtensor\.float32\) \(in layer"),
    C("Linear-input-ndarray", "pdt.nn.Linear(3, 4)(np.zeros((2, 3)))", "TypeError",
      r"input must be a Tensor, got ndarray"),
    C("Linear-other-device", 'pdt.nn.Linear(3, 4)(pdt.zeros(2, 3, device="cpu:1"))',
      "pydevtensor.DeviceError", r"is on cpu:1", setup=TWO_CPUS),
    C("Sequential-str", 'pdt.nn.Sequential("x")', "TypeError",
      r"argument 0 is a str, not an nn.Module"),
    C("Sequential-index", "pdt.nn.Sequential(pdt.nn.ReLU())[5]", "IndexError",
      r"index 5 is out of range for a Sequential of 1"),
    C("load_state_dict-shape",
      'pdt.nn.Linear(3, 4).load_state_dict({"weight": pdt.zeros(3, 3), "bias": pdt.zeros(4)})',
      "RuntimeError", r"size mismatch for 'weight'.*shape \(3, 3\).*shape \(4, 3\)"),
    C("load_state_dict-missing", 'pdt.nn.Linear(3, 4).load_state_dict({"weight": pdt.zeros(4, 3)})',
      "RuntimeError", r"missing key 'bias'"),
    C("load_state_dict-int", "pdt.nn.Linear(3, 4).load_state_dict(5)", "TypeError",
      r"expected a dict of Tensors \(a state_dict\), got int"),
    C("optim-load_state_dict-groups",
      "opt = pdt.optim.SGD(pdt.nn.Linear(3, 4).parameters(), lr=0.1)\nsd = opt.state_dict()\n"
      "sd['param_groups'].append(dict(sd['param_groups'][0], params=[2]))\n"
      "opt.load_state_dict(sd)", "ValueError",
      r"SGD.load_state_dict\(\): the state dict has 2 parameter groups, this optimizer has 1"),
    C("optim-load_state_dict-group-size",
      "sd = pdt.optim.SGD(pdt.nn.Linear(3, 4).parameters(), lr=0.1).state_dict()\n"
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1).load_state_dict(sd)", "ValueError",
      r"parameter group 0 has 2 parameters in the state dict, 1 in this optimizer"),
    C("optim-load_state_dict-shape",
      "net = pdt.nn.Linear(3, 4)\nopt = pdt.optim.Adam(net.parameters())\n"
      "net(pdt.ones(1, 3)).sum().backward()\nopt.step()\n"
      "pdt.optim.Adam(pdt.nn.Linear(4, 3).parameters()).load_state_dict(opt.state_dict())",
      "ValueError", r"parameter 0's state: exp_avg is a float32 tensor of shape \(4, 3\), not "
      r"a floating-point tensor of its parameter's shape \(3, 4\)"),
    C("Adafactor-d", "pdt.optim.Adafactor([pdt.nn.Parameter(t)], d=0.5)", "ValueError",
      r"Adafactor: Clipping threshold d should be >= 1 but is: 0\.5"),
    C("Adafactor-load-row-factor",
      "w = pdt.nn.Parameter(pdt.ones(3, 4))\nopt = pdt.optim.Adafactor([w])\n"
      "w.grad = pdt.ones(3, 4)\nopt.step()\n"
      "pdt.optim.Adafactor([pdt.nn.Parameter(pdt.ones(4, 3))]).load_state_dict(opt.state_dict())",
      "ValueError", r"parameter 0's state: row_var is a float32 tensor of shape \(3, 1\), not "
      r"a floating-point tensor of shape \(4, 1\) \(its parameter's, row factor\)"),
    C("optim-load_state_dict-int", "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=1).load_state_dict(5)",
      "TypeError", r"expected a dict \(an optimizer's state_dict\(\)\), got int"),
    C("optim-non-leaf", "pdt.optim.SGD([pdt.nn.Parameter(t) * 2], lr=0.1)", "ValueError",
      r"SGD: can't optimize a non-leaf Tensor \(shape \(2, 3\) on cpu"),
    C("optim-tensor-lr-size", "pdt.optim.Adam([pdt.nn.Parameter(t)], lr=pdt.ones(2))",
      "ValueError", r"Adam: Tensor lr must be 1-element, got shape \(2,\) on cpu"),
    C("optim-tensor-lr-negative", "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=pdt.tensor(-1.0))",
      "ValueError", r"SGD: Invalid learning rate: -1.0 \(it must be >= 0\)"),
    C("optim-names-partly", "pdt.optim.SGD([('w', pdt.nn.Parameter(t)), "
      "pdt.nn.Parameter(pdt.ones(1))], lr=0.1)", "ValueError",
      r"all optimizer params should be with/without names; 1 of 2 have no name"),
    C("optim-params-set", "pdt.optim.SGD([{'params': {pdt.nn.Parameter(t)}}], lr=0.1)",
      "TypeError", r"SGD: a group's params must be an ordered collection \(a list\), not a "
      r"set"),
    C("optim-step-pre-hook-result",
      "opt = pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1)\n"
      "opt.register_step_pre_hook(lambda o, a, k: 5)\nopt.step()", "RuntimeError",
      r"SGD.step\(\): a step pre-hook must return None or a tuple \(new_args, new_kwargs\), "
      r"got int"),
    C("optim-hook-not-callable",
      "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1).register_state_dict_pre_hook(3)",
      "TypeError", r"SGD.register_state_dict_pre_hook\(\): the hook must be callable, got int"),
    C("Module-to-extra-argument", "pdt.nn.Linear(3, 4).to('cpu', pdt.float64, False, 1)",
      "TypeError", r"to\(\): unexpected argument 1: expected to\(device, dtype, "
      r"non_blocking\)"),
    C("Module-to-int-dtype", "pdt.nn.Linear(3, 4).to(pdt.int32)", "TypeError",
      r"only accepts floating point dtypes"),
    C("Parameter-list", "pdt.nn.Parameter([1, 2])", "TypeError",
      r"Parameter\(data\) needs a Tensor, got list"),
    C("functional-linear-3d-weight", "pdt.nn.functional.linear(pdt.zeros(2, 3), "
      "pdt.zeros(1, 4, 3))", "ValueError", r"weight must be 2-d \(out_features, in_features\) "
      r"or 1-d \(in_features\), got shape \(1, 4, 3\)"),
    C("functional-linear-1d-weight-size", "pdt.nn.functional.linear(pdt.zeros(2, 3), "
      "pdt.zeros(4))", "ValueError", r"weight must be 2-d"),
    C("batch_norm-eval-no-running-stats", "pdt.nn.functional.batch_norm(pdt.ones(2, 3), None, "
      "None, training=False)", "RuntimeError", r"running_mean must be defined in evaluation "
      r"mode \(training=False\).*shape \(2, 3\) on cpu"),
    C("batch_norm-eps-zero-training", "pdt.nn.functional.batch_norm(pdt.ones(2, 3), None, "
      "None, training=True, eps=0.0)", "ValueError",
      r"batch_norm eps must be positive during training, but got 0\.0"),
    C("batch_norm-int-running-stats", "pdt.nn.functional.batch_norm(pdt.ones(2, 3), "
      "pdt.zeros(3, dtype=pdt.int64), pdt.ones(3, dtype=pdt.int64), training=True)",
      "pydevtensor.DTypeError", r"running_mean must be floating point, got pydevtensor\.int64"),
    C("embedding_bag-offsets-decrease", "pdt.nn.functional.embedding_bag(pdt.tensor([1, 2, 3]), "
      "pdt.ones(5, 2), pdt.tensor([0, 2, 1]))", "ValueError",
      r"offsets must not decrease, got offsets\[1\] = 2 and offsets\[2\] = 1"),
    C("embedding_bag-offsets-start", "pdt.nn.functional.embedding_bag(pdt.tensor([1, 2, 3]), "
      "pdt.ones(5, 2), pdt.tensor([1, 2]))", "ValueError",
      r"offsets\[0\] has to be 0"),
    C("embedding_bag-offsets-past-end", "pdt.nn.functional.embedding_bag(pdt.tensor([1, 2, 3]),"
      " pdt.ones(5, 2), pdt.tensor([0, 4]))", "ValueError",
      r"offsets\[-1\] can not be greater than input's length 3"),
    C("embedding_bag-last-offset", "pdt.nn.functional.embedding_bag(pdt.tensor([1, 2, 3]), "
      "pdt.ones(5, 2), pdt.tensor([0, 2]), include_last_offset=True)", "ValueError",
      r"with include_last_offset the last offset must be the input's length 3, got 2"),
    C("embedding_bag-max-scale-grad", "pdt.nn.functional.embedding_bag(pdt.tensor([[1, 2]]), "
      "pdt.ones(5, 2), mode='max', scale_grad_by_freq=True)", "ValueError",
      r"max mode does not support scaling the gradient by the frequency"),
    C("embedding_bag-int-weight", "pdt.nn.functional.embedding_bag(pdt.tensor([[1, 2]]), "
      "pdt.ones(5, 2, dtype=pdt.int64))", "pydevtensor.DTypeError",
      r"embedding_bag\(\): weight must be floating point .*, got pydevtensor\.int64 \(on cpu\)"),
    C("embedding_bag-per-sample-weights-dtype", "pdt.nn.functional.embedding_bag("
      "pdt.tensor([[1, 2]]), pdt.ones(5, 2), mode='sum', per_sample_weights=pdt.ones(1, 2, "
      "dtype=pdt.float64))", "pydevtensor.DTypeError",
      r"per_sample_weights must have weight's dtype pydevtensor\.float32, got "
      r"pydevtensor\.float64"),
    C("embedding_bag-empty-offsets", "pdt.nn.functional.embedding_bag(pdt.tensor([1, 2]), "
      "pdt.ones(5, 2), pdt.tensor([], dtype=pdt.int64))", "pydevtensor.InvalidArgumentError",
      r"offsets is empty \(no bag\) but the input holds 2 indices"),
    # offsets or per_sample_weights on another device: named (searchsorted's or mul's
    # message before)
    C("embedding_bag-offsets-on-another-device", "pdt.nn.functional.embedding_bag("
      "pdt.tensor([1, 2]), pdt.ones(5, 2), pdt.tensor([0], device='cpu:1'))",
      "pydevtensor.DeviceError", r"embedding_bag\(\): Expected all tensors to be on the same "
      r"device, but the offsets \(1,\) are on cpu:1 and weight \(5, 2\) on cpu(:0)?",
      setup=TWO_CPUS),
    C("embedding_bag-per-sample-weights-on-another-device", "pdt.nn.functional.embedding_bag("
      "pdt.tensor([[1, 2]]), pdt.ones(5, 2), mode='sum', per_sample_weights=pdt.ones(1, 2, "
      "device='cpu:1'))", "pydevtensor.DeviceError", r"embedding_bag\(\): Expected all "
      r"tensors to be on the same device, but the per_sample_weights \(1, 2\) are on cpu:1",
      setup=TWO_CPUS),
    C("full-size-twice", "pdt.full((2,), 1.0, size=(3,))", "TypeError",
      r"full\(\) got multiple values for argument 'size'"),
    C("linspace-too-many", "pdt.linspace(0, 1, 3, 4)", "TypeError",
      r"linspace\(\) takes at most 3 positional arguments \(4 given\)"),
    C("max-other-keepdim", "pdt.max(t, t, keepdim=True)", "TypeError",
      r"max\(other\) takes no dim or keepdim"),
    C("one_hot-float", "pdt.nn.functional.one_hot(t)", "TypeError",
      r"one_hot\(\): input must hold integer class indices \(int64 or int32\), got "
      r"pydevtensor\.float32 on cpu"),
    C("one_hot-list", "pdt.nn.functional.one_hot([0, 1])", "TypeError",
      r"one_hot\(\): input must be a Tensor, got list"),
    C("one_hot-too-big", "pdt.nn.functional.one_hot(pdt.tensor([0, 5, 2]), 3)", "RuntimeError",
      r"one_hot\(\): class 5 is out of range for num_classes=3"),
    C("one_hot-negative", "pdt.nn.functional.one_hot(pdt.tensor([1, -2]))", "RuntimeError",
      r"one_hot\(\): class -2 is out of range"),
    C("one_hot-num_classes-float", "pdt.nn.functional.one_hot(pdt.tensor([1]), 2.0)",
      "TypeError", r"num_classes must be an int, got float"),
    C("one_hot-num_classes-below-minus-1", "pdt.nn.functional.one_hot(pdt.tensor([1]), -5)",
      "ValueError", r"num_classes must be -1 \(inferred\) or >= 0, got -5"),
    C("clip_grad_norm_-negative", "pdt.nn.utils.clip_grad_norm_([t], -1.0)", "ValueError",
      r"clip_grad_norm_\(\): max_norm must be >= 0, got -1.0"),
    C("clip_grad_norm_-nan", 'pdt.nn.utils.clip_grad_norm_([t], float("nan"))', "ValueError",
      r"clip_grad_norm_\(\): max_norm must be >= 0, got nan"),
    C("clip_grad_norm_-str-norm", 'pdt.nn.utils.clip_grad_norm_([t], 1.0, "l2")', "ValueError",
      r"norm_type must be a number or 'inf', got 'l2'"),
    C("clip_grad_norm_-ndarray", "pdt.nn.utils.clip_grad_norm_([t, a], 1.0)", "TypeError",
      r"clip_grad_norm_\(\): parameters must be Tensors, got ndarray"),
    C("clip_grad_norm_-nonfinite",
      'w = pdt.nn.Parameter(pdt.ones(2))\nw.grad = pdt.tensor([1.0, float("nan")])\n'
      'pdt.nn.utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True)', "RuntimeError",
      r"the total norm of order 2.0 of the gradients is nan \(on cpu\)"),
    C("clip_grad_norm-negative", "pdt.nn.utils.clip_grad_norm([t], -1.0)", "ValueError",
      r"clip_grad_norm_\(\): max_norm must be >= 0, got -1.0"),
    C("convert_conv2d_weight_memory_format-3d-format",
      "pdt.nn.utils.convert_conv2d_weight_memory_format(pdt.nn.Conv2d(1, 1, 1), "
      "pdt.channels_last_3d)", "ValueError", r"required rank 5 tensor to use channels_last_3d"),
    C("convert_conv3d_weight_memory_format-str",
      "pdt.nn.utils.convert_conv3d_weight_memory_format(pdt.nn.Conv3d(1, 1, 1), 'cl')",
      "TypeError", r"memory_format"),
    C("clip_grad_value_-negative", "pdt.nn.utils.clip_grad_value_(t, -2)", "ValueError",
      r"clip_grad_value_\(\): clip_value must be >= 0, got -2"),
    C("clip_grad_value_-number", "pdt.nn.utils.clip_grad_value_(3, 1.0)", "TypeError",
      r"parameters must be a Tensor or an iterable of Tensors, got int"),
    C("get_total_norm-norm-type", "pdt.nn.utils.get_total_norm([t], norm_type='fro')",
      "ValueError", r"get_total_norm\(\): norm_type must be a number or 'inf', got 'fro'"),
    C("get_total_norm-nonfinite", "pdt.nn.utils.get_total_norm([pdt.tensor([float('inf')])], "
      "error_if_nonfinite=True)", "RuntimeError",
      r"get_total_norm\(\): the total norm of order 2.0 of the gradients is inf \(on cpu\)"),
    C("get_total_norm-int", "pdt.nn.utils.get_total_norm(pdt.ones(3, dtype=pdt.int64))",
      "TypeError", r"gradients must be floating point, got pydevtensor.int64 of shape \(3,\) "
      r"on cpu"),
    C("clip_grads_with_norm_-negative", "pdt.nn.utils.clip_grads_with_norm_([t], -0.5, 1.0)",
      "ValueError", r"clip_grads_with_norm_\(\): max_norm must be >= 0, got -0.5"),
    C("clip_grads_with_norm_-total-shape", "pdt.nn.utils.clip_grads_with_norm_([t], 1.0, "
      "pdt.ones(2, 2))", "TypeError", r"total_norm must be a number or a one-element "
      r"floating-point tensor, got a pydevtensor.float32 tensor of shape \(2, 2\) on cpu"),
    C("one_hot-empty-inferred", "pdt.nn.functional.one_hot(pdt.zeros(0, dtype=pdt.int64))",
      "ValueError", r"cannot infer the number of classes from an empty tensor"),
    C("l1_loss-shapes", "pdt.nn.functional.l1_loss(pdt.zeros(3, 2), pdt.zeros(3))", "ValueError",
      r"l1_loss\(\): input of shape \(3, 2\) and target of shape \(3,\) differ and do not "
      r"broadcast, on cpu"),
    C("mse_loss-weight-shape", "pdt.nn.functional.mse_loss(t, t, weight=pdt.ones(1, 1, 1))",
      "ValueError", r"mse_loss\(\): weight of shape \(1, 1, 1\) and input of shape"),
    C("HuberLoss-shapes", "pdt.nn.HuberLoss()(pdt.zeros(2), pdt.zeros(3))", "ValueError",
      r"huber_loss\(\): input of shape \(2,\) and target of shape \(3,\) differ and do "
      r"not broadcast, on cpu"),
    C("HuberLoss-delta-zero", "pdt.nn.HuberLoss(delta=0.0)", "ValueError",
      r"HuberLoss: delta must be > 0, got 0.0"),
    C("huber_loss-delta-str", "pdt.nn.functional.huber_loss(t, t, delta='1')", "TypeError",
      r"huber_loss\(\): delta must be a number, got str"),
    C("SmoothL1Loss-beta-negative", "pdt.nn.SmoothL1Loss(beta=-1.0)", "ValueError",
      r"SmoothL1Loss: beta must be >= 0, got -1.0"),
    C("smooth_l1_loss-beta-nan", "pdt.nn.functional.smooth_l1_loss(t, t, beta=float('nan'))",
      "ValueError", r"smooth_l1_loss\(\): beta must be >= 0, got nan"),
    C("L1Loss-reduction", "pdt.nn.L1Loss(reduction='avg')", "ValueError",
      r"L1Loss: reduction must be 'mean', 'sum' or 'none', got 'avg'"),
    C("nll_loss-target-shape", "pdt.nn.functional.nll_loss(pdt.zeros(2, 3), pdt.tensor([0]))",
      "ValueError", r"nll_loss\(\): target of shape \(1,\) does not match input of shape "
      r"\(2, 3\): expected \(2,\)"),
    C("nll_loss-1d-input", "pdt.nn.functional.nll_loss(pdt.zeros(3), pdt.tensor([0]))",
      "ValueError", r"nll_loss\(\): an unbatched input of shape \(3,\) takes a target of "
      r"shape \(\), got \(1,\) \(on cpu\)"),
    C("nll_loss-0d-input", "pdt.nn.functional.nll_loss(pdt.zeros(()), pdt.tensor(0))",
      "ValueError", r"nll_loss\(\): input must be \(N, C\) log-probabilities, got shape "
      r"\(\) on cpu"),
    C("LeakyReLU-slope-str", "pdt.nn.LeakyReLU('0.1')", "TypeError",
      r"LeakyReLU: negative_slope must be a number, got str"),
    C("leaky_relu-int", "pdt.nn.functional.leaky_relu(pdt.tensor([1, -2]))",
      "NotImplementedError",
      r"leaky_relu\(\): expected a floating point tensor, got pydevtensor.int64 on cpu"),
    C("gelu-approximate", "pdt.nn.functional.gelu(t, approximate='exact')", "RuntimeError",
      r"gelu\(\): approximate must be 'none' or 'tanh', got 'exact'"),
    C("GELU-approximate", "pdt.nn.GELU('erf')", "ValueError",
      r"GELU: approximate must be 'none' or 'tanh', got 'erf'"),
    C("silu-int", "pdt.nn.functional.silu(pdt.tensor([1, -2]))", "NotImplementedError",
      r"silu\(\): expected a floating point tensor, got pydevtensor.int64 on cpu"),
    C("SiLU-list", "pdt.nn.SiLU()([1.0])", "TypeError", r"silu\(\): input must be a Tensor, got list"),
    C("elu-alpha-str", "pdt.nn.functional.elu(t, alpha='1')", "TypeError",
      r"elu\(\): alpha must be a number, got str"),
    C("ELU-bool", "pdt.nn.ELU()(pdt.tensor([True]))", "NotImplementedError",
      r"elu\(\): expected a floating point tensor, got pydevtensor.bool on cpu"),
    C("softplus-beta-none", "pdt.nn.functional.softplus(t, beta=None)", "TypeError",
      r"softplus\(\): beta must be a number, got NoneType"),
    C("Softplus-threshold-str", "pdt.nn.Softplus(threshold='20')", "TypeError",
      r"Softplus\(\): threshold must be a number, got str"),
    C("mish-int", "pdt.nn.Mish()(pdt.tensor([3]))", "NotImplementedError",
      r"mish\(\): expected a floating point tensor, got pydevtensor.int64 on cpu"),
    C("logsigmoid-int", "pdt.nn.functional.logsigmoid(pdt.tensor([3]))", "NotImplementedError",
      r"logsigmoid\(\): expected a floating point tensor, got pydevtensor.int64 on cpu"),
    C("LogSigmoid-str", "pdt.nn.LogSigmoid()('x')", "TypeError",
      r"logsigmoid\(\): input must be a Tensor, got str"),
    C("hardtanh-bounds", "pdt.nn.functional.hardtanh(t, 1.0, -1.0)", "ValueError",
      r"hardtanh\(\): min_val cannot be greater than max_val, got min_val=1.0 and max_val=-1.0"),
    C("Hardtanh-bounds", "pdt.nn.Hardtanh(2, 1)", "ValueError",
      r"Hardtanh: min_val cannot be greater than max_val, got min_val=2 and max_val=1"),
    C("relu6-bool", "pdt.nn.functional.relu6(pdt.tensor([True]))", "NotImplementedError",
      r"relu6\(\): bool inputs are not supported \(as in PyTorch\), got a tensor of "
      r"pydevtensor.bool on cpu"),
    C("ReLU6-list", "pdt.nn.ReLU6()([1.0])", "TypeError", r"relu6\(\): input must be a Tensor"),
    C("CrossEntropyLoss-label-smoothing-big", "pdt.nn.CrossEntropyLoss(label_smoothing=1.5)",
      "ValueError", r"label_smoothing must be between 0.0 and 1.0, got 1.5"),
    C("cross_entropy-label-smoothing-negative",
      "pdt.nn.functional.cross_entropy(pdt.zeros(2, 3), pdt.tensor([0, 1]), "
      "label_smoothing=-0.1)", "ValueError",
      r"label_smoothing must be between 0.0 and 1.0, got -0.1"),
    C("cross_entropy-weight-positional-reduction",
      "pdt.nn.functional.cross_entropy(pdt.zeros(2, 3), pdt.tensor([0, 1]), 'sum')", "TypeError",
      r"cross_entropy\(\): weight must be a Tensor or None, got str 'sum': pass "
      r"reduction='sum' by keyword"),
    C("cross_entropy-weight-shape",
      "pdt.nn.functional.cross_entropy(pdt.zeros(2, 3), pdt.tensor([0, 1]), pdt.ones(2))",
      "ValueError", r"cross_entropy\(\): weight of shape \(2,\) does not fit input of shape "
      r"\(2, 3\): expected \(3,\), one per class"),
    C("nll_loss-ignore-index-float",
      "pdt.nn.functional.nll_loss(pdt.zeros(2, 3), pdt.tensor([0, 1]), ignore_index=1.5)",
      "TypeError", r"nll_loss\(\): ignore_index must be an int, got float"),
    C("CrossEntropyLoss-weight-list", "pdt.nn.CrossEntropyLoss([1.0, 2.0])", "TypeError",
      r"CrossEntropyLoss: weight must be a Tensor or None, got list"),
    C("bce_with_logits-shapes",
      "pdt.nn.functional.binary_cross_entropy_with_logits(pdt.zeros(2, 3), pdt.zeros(3))",
      "ValueError", r"binary_cross_entropy_with_logits\(\): target of shape \(3,\) and input "
      r"of shape \(2, 3\) differ, on cpu"),
    C("binary_cross_entropy-out-of-range",
      "pdt.nn.functional.binary_cross_entropy(pdt.tensor([0.5, 1.5]), pdt.tensor([1.0, 0.0]))",
      "ValueError", r"binary_cross_entropy\(\): all elements of input should be between 0 "
      r"and 1, got 1.5 \(input of shape \(2,\) on cpu\)"),
    C("binary_cross_entropy-target-out-of-range",
      "pdt.nn.functional.binary_cross_entropy(pdt.tensor([0.5, 0.5]), pdt.tensor([1.0, -0.5]))",
      "ValueError", r"binary_cross_entropy\(\): all elements of target should be between 0 "
      r"and 1, got -0.5 \(target of shape \(2,\) on cpu\)"),
    C("BCELoss-shapes", "pdt.nn.BCELoss()(pdt.full((2,), 0.5), pdt.zeros(3))", "ValueError",
      r"binary_cross_entropy\(\): target of shape \(3,\) and input of shape \(2,\) differ"),
    C("BCELoss-int-input", "pdt.nn.BCELoss()(pdt.tensor([0, 1]), pdt.zeros(2))", "TypeError",
      r"input and target must be floating point, got pydevtensor.int64"),
    C("cross_entropy-spatial-target-shape",
      "pdt.nn.functional.cross_entropy(pdt.ones(3, 10, 4), pdt.ones(3, 5, dtype=pdt.int64))",
      "ValueError", r"input of shape \(3, 10, 4\) \(N, C, d1, \.\.\.\) takes a target of "
      r"shape \(3, 4\), got \(3, 5\) \(on cpu\)"),
    C("LogSoftmax-dim-out-of-range", "pdt.nn.LogSoftmax(dim=3)(pdt.ones(2, 2))",
      "IndexError", r"log_softmax\(\): Dimension out of range \(expected to be in range of "
      r"\[-2, 1\], but got 3\)"),
    C("BCEWithLogitsLoss-int-target",
      "pdt.nn.BCEWithLogitsLoss()(pdt.zeros(2), pdt.tensor([0, 1]))", "TypeError",
      r"input and target must be floating point, got pydevtensor.float32 and "
      r"pydevtensor.int64 on cpu"),
    C("mse_loss-positional-reduction", "pdt.nn.functional.mse_loss(t, t, 'sum')", "TypeError",
      r"mse_loss\(\): size_average='sum': the reduction comes after the deprecated "
      r"size_average and reduce, as in PyTorch; write reduction='sum'"),
    C("kl_div-reduction", "pdt.nn.functional.kl_div(pdt.zeros(2), pdt.zeros(2), "
      "reduction='avg')",
      "ValueError", r"kl_div\(\): reduction must be 'mean', 'batchmean', 'sum' or 'none', "
      r"got 'avg'"),
    C("KLDivLoss-log-target", "pdt.nn.KLDivLoss(log_target=1)", "TypeError",
      r"KLDivLoss: log_target must be True or False, got 1"),
    C("trunc_normal-bounds", "pdt.nn.init.trunc_normal_(pdt.empty(3), a=1.0, b=-1.0)",
      "RuntimeError", r"nn.init.trunc_normal_\(\): a must not be above b, got a=1.0 and b=-1.0"),
    C("trunc_normal-int", "pdt.nn.init.trunc_normal_(pdt.zeros(3, dtype=pdt.int64))",
      "TypeError", r"trunc_normal_\(\): expected a floating-point tensor, got "
      r"pydevtensor.int64 on cpu"),
    C("eye_-3d", "pdt.nn.init.eye_(pdt.empty(2, 2, 2))", "ValueError",
      r"nn.init.eye_\(\): only 2-d tensors are supported, got shape \(2, 2, 2\) on cpu"),
    C("orthogonal_-1d", "pdt.nn.init.orthogonal_(pdt.empty(4))", "ValueError",
      r"orthogonal_\(\): only tensors with 2 or more dimensions are supported, got shape "
      r"\(4,\) on cpu"),
    C("orthogonal_-gain-str", "pdt.nn.init.orthogonal_(pdt.empty(2, 2), gain='2')", "TypeError",
      r"orthogonal_\(\): gain must be a number, got '2'"),
    C("SGD-nesterov-no-momentum", "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1, nesterov=True)",
      "ValueError", r"SGD: Nesterov momentum requires a momentum and zero dampening "
      r"\(a momentum > 0 and dampening 0\), got momentum=0 and dampening=0"),
    C("SGD-nesterov-dampening", "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1, momentum=0.9, "
      "dampening=0.1, nesterov=True)", "ValueError",
      r"Nesterov momentum requires a momentum and zero dampening"),
    C("AdamW-negative-weight-decay", "pdt.optim.AdamW([pdt.nn.Parameter(t)], weight_decay=-1)",
      "ValueError", r"AdamW: Invalid weight_decay value: -1 \(it must be >= 0\)"),
    C("AdamW-betas", "pdt.optim.AdamW([pdt.nn.Parameter(t)], betas=(0.9, 1.0))", "ValueError",
      r"AdamW: Invalid beta parameter at index 1: 1.0 \(betas must be two "
      r"numbers in \[0, 1\)\)"),
    C("Adam-amsgrad-str", "pdt.optim.Adam([pdt.nn.Parameter(t)], amsgrad='yes')", "TypeError",
      r"Adam: amsgrad must be True or False, got 'yes'"),
    C("SGD-maximize-int", "pdt.optim.SGD([pdt.nn.Parameter(t)], lr=0.1, maximize=1)",
      "TypeError", r"SGD: maximize must be True or False, got 1"),
    C("Adamax-negative-eps", "pdt.optim.Adamax([pdt.nn.Parameter(t)], eps=-1e-8)", "ValueError",
      r"Adamax: Invalid epsilon value: -1e-08 \(it must be >= 0\)"),
    C("NAdam-negative-momentum-decay",
      "pdt.optim.NAdam([pdt.nn.Parameter(t)], momentum_decay=-0.5)", "ValueError",
      r"NAdam: Invalid momentum_decay value: -0.5 \(it must be >= 0\)"),
    C("NAdam-load-mu-product", "w = pdt.nn.Parameter(t)\nopt = pdt.optim.NAdam([w])\n"
      "w.grad = pdt.ones(2, 3)\nopt.step()\nsd = opt.state_dict()\n"
      "sd['state'][0]['mu_product'] = 'x'\npdt.optim.NAdam([w]).load_state_dict(sd)",
      "ValueError", r"parameter 0's state: mu_product is 'x', not a finite number"),
    C("RAdam-betas", "pdt.optim.RAdam([pdt.nn.Parameter(t)], betas=(0.9, 1.5))", "ValueError",
      r"RAdam: Invalid beta parameter at index 1: 1.5 \(betas must be two "
      r"numbers in \[0, 1\)\)"),

    C("register_state_dict_pre_hook-not-callable",
      "pdt.nn.Linear(1, 1).register_state_dict_pre_hook(1)", "TypeError",
      r"register_state_dict_pre_hook\(\): hook must be callable, got int"),
    C("register_state_dict_post_hook-not-callable",
      "pdt.nn.Linear(1, 1).register_state_dict_post_hook('f')", "TypeError",
      r"register_state_dict_post_hook\(\): hook must be callable, got str"),
    C("register_load_state_dict_pre_hook-not-callable",
      "pdt.nn.Linear(1, 1).register_load_state_dict_pre_hook(None)", "TypeError",
      r"register_load_state_dict_pre_hook\(\): hook must be callable, got NoneType"),
    C("register_load_state_dict_post_hook-returns",
      "m = pdt.nn.Linear(1, 1)\nm.register_load_state_dict_post_hook(lambda m, k: k)\n"
      "m.load_state_dict(m.state_dict())", "RuntimeError",
      r"a load_state_dict post-hook of Linear returned a value; it must return None"),
    C("register_module_forward_hook-not-callable",
      "pdt.nn.modules.module.register_module_forward_hook(3)", "TypeError",
      r"register_module_forward_hook\(\): hook must be callable, got int"),
    C("register_module_forward_pre_hook-not-callable",
      "pdt.nn.modules.module.register_module_forward_pre_hook('f')", "TypeError",
      r"register_module_forward_pre_hook\(\): hook must be callable, got str"),
    C("register_module_full_backward_hook-not-callable",
      "pdt.nn.modules.module.register_module_full_backward_hook(None)", "TypeError",
      r"register_module_full_backward_hook\(\): hook must be callable, got NoneType"),
    C("register_module_full_backward_pre_hook-not-callable",
      "pdt.nn.modules.module.register_module_full_backward_pre_hook(2)", "TypeError",
      r"register_module_full_backward_pre_hook\(\): hook must be callable, got int"),
    C("register_module_buffer_registration_hook-not-callable",
      "pdt.nn.modules.module.register_module_buffer_registration_hook(1)", "TypeError",
      r"register_module_buffer_registration_hook\(\): hook must be callable, got int"),
    C("register_module_parameter_registration_hook-not-callable",
      "pdt.nn.modules.module.register_module_parameter_registration_hook('h')", "TypeError",
      r"register_module_parameter_registration_hook\(\): hook must be callable, got str"),
    C("register_module_module_registration_hook-not-callable",
      "pdt.nn.modules.module.register_module_module_registration_hook(None)", "TypeError",
      r"register_module_module_registration_hook\(\): hook must be callable, got NoneType"),
    C("register_backward_hook-not-callable", "pdt.nn.Linear(1, 1).register_backward_hook(1)",
      "TypeError", r"register_backward_hook\(\): hook must be callable, got int"),
    C("register_backward_hook-after-full",
      "m = pdt.nn.Linear(1, 1)\nm.register_full_backward_hook(lambda *a: None)\n"
      "m.register_backward_hook(lambda *a: None)", "RuntimeError",
      r"Cannot use both regular backward hooks and full backward hooks on a single Module"),
    C("Module-init-argument", "pdt.nn.Module(3)", "TypeError",
      r"Module.__init__\(\) takes 1 positional argument but 2 were given"),
    C("skip_init-not-a-module", "pdt.nn.utils.skip_init(int)", "RuntimeError",
      r"skip_init\(\): Expected a Module; got <class 'int'>"),
    C("skip_init-no-device", "pdt.nn.utils.skip_init(pdt.nn.ReLU)", "RuntimeError",
      r"Module must support a 'device' arg to skip initialization \(ReLU takes none\)"),
    C("init-deprecated-normal-int", "pdt.nn.init.normal(3)", "TypeError",
      r"nn.init.normal_\(\): expected a Tensor, got int"),
    C("init-deprecated-constant-list", "pdt.nn.init.constant([1.0], 2.0)", "TypeError",
      r"nn.init.constant_\(\): expected a Tensor, got list"),
    C("get_extra_state-not-overridden", "pdt.nn.Linear(1, 1).get_extra_state()",
      "RuntimeError", r"Module.get_extra_state\(\) is called only where a subclass "
      r"overrides it"),
    # ---- nn.AdaptiveLogSoftmaxWithLoss (nn/adaptive.py)
    C("AdaptiveLogSoftmaxWithLoss-cutoffs", "pdt.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3])",
      "ValueError", r"cutoffs should be a sequence of unique, positive integers sorted in an "
      r"increasing order, where each value is between 1 and n_classes-1"),
    C("AdaptiveLogSoftmaxWithLoss-target-range",
      "pdt.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5])(pdt.ones(2, 4), pdt.tensor([0, 10]))",
      "RuntimeError", r"Target values should be in \[0, 9\], but values in range \[0, 10\] "
      r"were found"),
    # ---- optim.Muon (optim/_muon.py)
    C("Muon-1d-param", "pdt.optim.Muon([pdt.nn.Parameter(pdt.ones(3))])", "ValueError",
      r"Muon only supports 2D parameters whereas we found a parameter with size: "
      r"pydevtensor\.Size\(\[3\]\) \(on cpu\)"),
    C("Muon-adjust_lr_fn", "pdt.optim.Muon([pdt.nn.Parameter(t.reshape(1, -1))], "
      "adjust_lr_fn='rms')", "ValueError",
      r"Muon: Adjust learning rate function rms is not supported"),
]
