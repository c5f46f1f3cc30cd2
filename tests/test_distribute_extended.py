"""tf.distribute's remaining names: strategy.extended (StrategyExtended), the
cross-device ops MirroredStrategy(cross_device_ops=...) takes (Note [cross-device ops]
in pydevtensor/_distribute_extended.py), distribute_datasets_from_function with
InputContext (Note [datasets from a function]), and get_strategy, has_strategy,
in_cross_replica_context.  Multi-device cases run on 3 or 4 logical CPU devices in fresh
interpreters (tests/test_distribute.py's pattern).  Values are compared with NumPy;
training with one device's in float64 within 1e-12 (measured: about 1e-16)."""
import re

import numpy as np
import pytest
from test_distribute import _two_real_gpus, run, run_json
from test_logical_gpus import run as run_split

import pydevtensor as pdt
from pydevtensor import distribute, nn, optim


def test_each_cross_device_ops_trains_as_one_device_with_its_copies():
    """ReductionToOneDevice (on the first device, a middle one, and one that is no
    replica's), HierarchicalCopyAllReduce and NcclAllReduce (on CPU devices: TensorFlow's
    fallback, the reduction to one device) train 3 replicas as one device trains, the
    replicas bitwise identical; the all-reduce's receive buffer is on the reduce device
    and moves 2 (N - 1) buckets, or 2 N from a device that is no replica's."""
    out = run_json("""
        records = {}

        class Counted(distribute.MirroredStrategy):
            def _all_reduce(self, buckets, receive):
                pdt.reset_transfer_stats()
                super()._all_reduce(buckets, receive)
                records.setdefault(key, []).append(
                    [pdt.transfer_stats()['peer'], [str(t.device) for t in receive[0]
                                                    if t is not None]])

        X, y = data(11, 'float64')
        ref = mlp('float64')
        ref_opt = optim.SGD(ref.parameters(), lr=0.1, momentum=0.5)
        for epoch in range(2):
            for a in range(0, 11, 4):
                ref_opt.zero_grad()
                nn.CrossEntropyLoss()(ref(X[a:a + 4]), y[a:a + 4]).backward()
                ref_opt.step()
        result = {}
        for key, ops in (('default', distribute.ReductionToOneDevice()),
                         ('middle', distribute.ReductionToOneDevice(reduce_to_device='/cpu:1')),
                         ('outside', distribute.ReductionToOneDevice('cpu:3')),
                         ('hierarchical', distribute.HierarchicalCopyAllReduce(num_packs=2)),
                         ('nccl', distribute.NcclAllReduce())):
            s = Counted(DEVICES[:3], cross_device_ops=ops)
            with s.scope():
                net = mlp('float64')
            opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.5)
            s.fit(net, X, y, nn.CrossEntropyLoss(), opt, epochs=2, batch_size=4, verbose=0)
            same = all(np.array_equal(a, b) for r in s.replicas(net)[1:]
                       for a, b in zip(arrays(net), arrays(r)))
            err = max(float(np.max(np.abs(a - b))) for a, b in zip(arrays(net), arrays(ref)))
            result[key] = dict(method=s.all_reduce_method, same=same, err=err,
                               records=records[key])
        print(json.dumps(dict(result=result, bucket=sum(
            p.numel() * 8 for p in mlp('float64').parameters()))))
    """, n=4)
    bucket = out["bucket"]
    where = {"default": "cpu:0", "middle": "cpu:1", "outside": "cpu:3",
             "hierarchical": "cpu:0", "nccl": "cpu:0"}
    for key, r in out["result"].items():
        assert r["method"] == "copies" and r["same"] and r["err"] <= 1e-12, (key, r)
        copies = 2 * 3 if key == "outside" else 2 * 2
        assert len(r["records"]) == 6, key  # 3 steps a epoch, 2 epochs
        for peer, devices in r["records"]:
            assert peer == {"count": copies, "bytes": copies * bucket}, (key, peer)
            assert set(devices) == {where[key]}, (key, devices)
            assert len(devices) == (2 if key == "outside" else 1), (key, devices)


def test_strategy_extended_devices_variables_and_reduce_to():
    out = run_json("""
        s = distribute.MirroredStrategy(DEVICES[:3])
        e = s.extended
        with s.scope():
            net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            with e.colocate_vars_with(net[0].weight):
                head = nn.Linear(3, 1)
        other = nn.Linear(2, 3)
        owned = [e.variable_created_in_scope(t) for r in s.replicas(net) + s.replicas(head)
                 for t in list(r.parameters()) + list(r.buffers())]
        foreign = [e.variable_created_in_scope(t) for t in
                   [other.weight, pdt.ones(1), net[0].weight.detach()]]
        errors = []
        for call in (lambda: e.variable_created_in_scope(3),
                     lambda: e.colocate_vars_with(other.weight).__enter__(),
                     lambda: e.reduce_to('SUM', pdt.ones(2), 'cpu:0'),
                     lambda: e.reduce_to('SUM', pdt.ones(2), 5),
                     lambda: e.reduce_to('PROD', pdt.ones(2), 'cpu:0'),
                     lambda: e.batch_reduce_to('SUM', [pdt.ones(2)])):
            try:
                call()
                errors.append('no error')
            except Exception as ex:
                errors.append(type(ex).__name__ + ' ' + str(ex))
        k = distribute.PerReplica([1.0, 2.0, 4.0])
        v = s.run(lambda c: pdt.tensor([c, -3 * c], dtype=pdt.float64), args=(k,))
        to1 = e.reduce_to('SUM', v, '/cpu:1')
        mean = e.reduce_to(distribute.ReduceOp.MEAN, v, pdt.zeros(1, device='cpu:2'))
        mirrored = e.reduce_to('SUM', v, v)
        batch = e.batch_reduce_to('MEAN', [(v, 'cpu:0'), (pdt.ones(2), 'cpu:1')])
        print(json.dumps(dict(
            worker=e.worker_devices, params=e.parameter_devices, owned=owned, foreign=foreign,
            errors=errors, to1=[to1.numpy().tolist(), str(to1.device)],
            mean=[mean.numpy().tolist(), str(mean.device)],
            mirrored=[[t.numpy().tolist(), str(t.device)] for t in mirrored.values],
            batch=[[t.numpy().tolist(), str(t.device)] for t in batch])))
    """, n=3)
    devices = ["cpu:0", "cpu:1", "cpu:2"]
    assert out["worker"] == out["params"] == devices
    assert len(out["owned"]) == 3 * (2 + 2 + 3) + 3 * 2 and all(out["owned"]), out["owned"]
    assert out["foreign"] == [False, False, False]
    total = np.array([1.0, -3.0]) * (1.0 + 2.0 + 4.0)
    assert out["to1"] == [total.tolist(), "cpu:1"]
    np.testing.assert_allclose(out["mean"][0], total / 3, rtol=1e-15)
    assert out["mean"][1] == "cpu:2"
    assert out["mirrored"] == [[total.tolist(), d] for d in devices]
    np.testing.assert_allclose(out["batch"][0][0], total / 3, rtol=1e-15)
    assert out["batch"][0][1] == "cpu:0" and out["batch"][1] == [[1.0, 1.0], "cpu:1"]
    expected = [("TypeError", "must be a Tensor \\(a parameter\\), got int"),
                ("ValueError", "`colocate_vars_with` must only be passed a variable created "
                               "in this tf.distribute.Strategy.scope\\(\\), not: a Tensor of "
                               "shape \\(3, 2\\)"),
                ("ValueError", "reduce_to\\(\\): a value that is not a PerReplica cannot be "
                               "summed"),
                ("TypeError", "destinations must be a device.*got int"),
                ("ValueError", "'PROD' is not a valid ReduceOp"),
                ("TypeError", "\\(value, destinations\\) pairs, got a Tensor of shape \\(2,\\)")]
    assert len(out["errors"]) == len(expected)
    for line, (exc, pattern) in zip(out["errors"], expected):
        assert line.startswith(exc + " ") and re.search(pattern, line), (line, pattern)


def test_distribute_datasets_from_function_deals_batches_to_the_replicas():
    """dataset_fn is called once with InputContext(1, 0, 3); each step gives replica i
    the next batch in turn; the last step's replicas without one get empty batches of
    the same structure (TensorFlow's [[6, 7], [8, 9], []] for range(10) in batches of
    2).  Iterating again iterates the dataset again."""
    out = run_json("""
        s = distribute.MirroredStrategy(DEVICES[:3])
        seen = []
        X = np.arange(26.0).reshape(13, 2)

        def dataset_fn(ctx):
            seen.append([ctx.num_input_pipelines, ctx.input_pipeline_id,
                         ctx.num_replicas_in_sync, repr(ctx)])
            per = ctx.get_per_replica_batch_size(6)
            return [(X[a:a + per], {'y': pdt.arange(a, min(a + per, 13))})
                    for a in range(0, 13, per)]

        data = s.distribute_datasets_from_function(dataset_fn)
        steps = []
        for _ in range(2):
            steps.append([[[x.tolist(), y.tolist(), str(x.device), str(y.device),
                            list(x.shape)]
                           for x, y in zip(s.experimental_local_results(b[0]),
                                           s.experimental_local_results(b[1]['y']))]
                          for b in data])
        print(json.dumps(dict(seen=seen, steps=steps)))
    """, n=3)
    assert out["seen"] == [[1, 0, 3, "InputContext(input pipeline id 0, total: 1)"]]
    X = np.arange(26.0).reshape(13, 2)
    batches = [(X[a:a + 2], list(range(a, min(a + 2, 13)))) for a in range(0, 13, 2)]
    expected = []
    for k in range(0, len(batches), 3):
        step = []
        for i in range(3):
            if k + i < len(batches):
                x, y = batches[k + i]
                step.append([x.tolist(), y, f"cpu:{i}", f"cpu:{i}", list(x.shape)])
            else:
                step.append([[], [], f"cpu:{i}", f"cpu:{i}", [0, 2]])
        expected.append(step)
    assert out["steps"] == [expected, expected]


def test_input_context():
    ctx = distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1,
                                  num_replicas_in_sync=4)
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == (2, 1, 4)
    assert ctx.get_per_replica_batch_size(8) == 2
    with pytest.raises(ValueError, match=re.escape(
            "The `global_batch_size` 10 is not divisible by `num_replicas_in_sync` 4")):
        ctx.get_per_replica_batch_size(10)
    default = distribute.InputContext()
    assert (default.num_input_pipelines, default.input_pipeline_id,
            default.num_replicas_in_sync) == (1, 0, 1)


def test_the_current_strategy_and_context():
    out = run_json("""
        s = distribute.MirroredStrategy(DEVICES[:2])
        got = {}
        got['outside'] = [repr(distribute.get_strategy()), distribute.has_strategy(),
                          distribute.in_cross_replica_context(),
                          distribute.get_strategy().num_replicas_in_sync,
                          distribute.get_strategy().extended.worker_devices]
        with s.scope():
            got['scope'] = [distribute.get_strategy() is s, distribute.has_strategy(),
                            distribute.in_cross_replica_context()]
            inner = s.run(lambda: [distribute.get_strategy() is s, distribute.has_strategy(),
                                   distribute.in_cross_replica_context()])
        got['run'] = [list(p.values) for p in inner]
        default = distribute.get_strategy()
        with default.scope():
            got['default_scope'] = [distribute.has_strategy(),
                                    distribute.in_cross_replica_context()]
            net = nn.Linear(2, 1)
        got['default_replicas'] = default.replicas(net) == [net]
        got['default_run'] = default.run(lambda: distribute.get_strategy() is default)
        with pdt.device('cpu:1'):
            got['default_device'] = default.extended.worker_devices
        print(json.dumps(got))
    """, n=2)
    assert out["outside"] == ["DefaultStrategy(devices=['cpu:0'])", False, False, 1, ["cpu:0"]]
    assert out["scope"] == [True, True, True]
    assert out["run"] == [[True, True], [True, True], [False, False]]
    assert out["default_scope"] == [False, False] and out["default_replicas"]
    assert out["default_run"] is True and out["default_device"] == ["cpu:1"]


def test_bad_input_to_the_new_names():
    out = run("""
        s = distribute.MirroredStrategy(DEVICES[:2])
        cases = [
            lambda: distribute.MirroredStrategy(DEVICES[:2], cross_device_ops='nccl'),
            lambda: distribute.MirroredStrategy(DEVICES[:2], all_reduce='copies',
                                                cross_device_ops=distribute.NcclAllReduce()),
            lambda: distribute.NcclAllReduce(num_packs=-1),
            lambda: distribute.HierarchicalCopyAllReduce(num_packs=-1),
            lambda: distribute.NcclAllReduce(num_packs=1.5),
            lambda: distribute.ReductionToOneDevice(accumulation_fn=sum),
            lambda: distribute.MirroredStrategy(
                DEVICES[:2], cross_device_ops=distribute.ReductionToOneDevice('cpu:7')),
            lambda: s.distribute_datasets_from_function(3),
            lambda: s.distribute_datasets_from_function(lambda c: [], options={}),
            lambda: s.distribute_datasets_from_function(lambda c: 3),
            lambda: list(s.distribute_datasets_from_function(lambda c: [[1, 2]])),
            lambda: list(s.distribute_datasets_from_function(lambda c: [pdt.tensor(1.0)])),
        ]
        report(cases)
    """, n=2)[0].splitlines()
    expected = [
        ("TypeError", "cross_device_ops must be a CrossDeviceOps .*got str"),
        ("ValueError", "give cross_device_ops or all_reduce, not both"),
        ("ValueError", "NCCL all-reduce requires num_packs >= 0, but -1 is specified"),
        ("ValueError", "HierarchicalCopy requires num_packs >= 0, but -1 is specified"),
        ("TypeError", "num_packs must be an int, got float"),
        ("NotImplementedError", "accumulation_fn is not supported"),
        ("DeviceError|RuntimeError|ValueError", "cpu:7|cpu.*7"),
        ("TypeError", "dataset_fn must be callable, got int"),
        ("TypeError", "options must be None.*got dict"),
        ("TypeError", "dataset_fn must return an iterable of batches, got int"),
        ("TypeError", "a batch holds Tensors or NumPy arrays.*got int"),
        ("ValueError", "a batch element is 0-d"),
    ]
    assert len(out) == len(expected), out
    for line, (exc, pattern) in zip(out, expected):
        assert re.match(f"({exc}) ", line) and re.search(pattern, line), (line, pattern)


def test_nccl_all_reduce_where_nccl_cannot_run_on_gpus_is_refused():
    """On GPUs NcclAllReduce means NCCL: two logical devices of one GPU are refused with
    the reason (checked through the choice's fakes, so it runs without a GPU)."""
    from pydevtensor._distribute_replicas import _choose_all_reduce
    gpus = (pdt.device("cuda", 0), pdt.device("cuda", 1))
    with pytest.raises(RuntimeError, match=re.escape(
            "MirroredStrategy(cross_device_ops=NcclAllReduce(num_packs=1)): NCCL needs "
            "distinct physical GPUs")):
        _choose_all_reduce(gpus, "nccl", physical_of=[0, 0], nccl_loads=lambda: True,
                           label="cross_device_ops=NcclAllReduce(num_packs=1)")
    method, where = distribute._cross_device_method(distribute.NcclAllReduce(), "auto", gpus)
    assert (method, str(where)) == ("nccl", "cuda:0")
    one = distribute.MirroredStrategy(["cpu"], cross_device_ops=distribute.NcclAllReduce())
    assert one.all_reduce_method == "copies"


def test_multiworker_refuses_datasets_from_function_and_reduce_to():
    worker = object.__new__(distribute.MultiWorkerMirroredStrategy)
    worker._devices = (pdt.device("cpu", 0),)
    worker._extended = distribute.StrategyExtended(worker)
    for call in (lambda: worker.distribute_datasets_from_function(lambda c: []),
                 lambda: worker.extended.reduce_to("SUM", pdt.ones(1), "cpu")):
        with pytest.raises(NotImplementedError, match="only fit"):
            call()


def test_extended_on_one_device_in_process():
    s = distribute.MirroredStrategy(["cpu"])
    with s.scope():
        net = nn.Linear(2, 1)
    assert s.extended is s.extended
    assert s.extended.variable_created_in_scope(net.bias)
    assert not s.extended.variable_created_in_scope(nn.Linear(2, 1).bias)


def test_one_replica_sums_what_run_returns():
    """With one replica run returns its value itself (not a PerReplica); reduce and
    reduce_to with SUM give it back, as TensorFlow's (they raised ValueError)."""
    s = distribute.MirroredStrategy(["cpu"])
    out = s.run(lambda: pdt.tensor([1.0, -2.5]))
    assert s.reduce("SUM", out, axis=None).tolist() == [1.0, -2.5]
    assert s.extended.reduce_to("SUM", out, "cpu").tolist() == [1.0, -2.5]


@pytest.mark.cuda
@pytest.mark.skipif(not _two_real_gpus(), reason="needs 2 physical GPUs and NCCL")
def test_cross_device_ops_on_two_gpus():
    """On two GPUs NcclAllReduce is the NCCL all-reduce (gradients counted as
    collectives, not peer copies); ReductionToOneDevice('cuda:1') takes the sums on
    cuda:1 through copies, HierarchicalCopyAllReduce on cuda:0.  With two replicas a sum
    is one addition, the same in any order: the three train to the same weights (within
    1e-12 in float64), the replicas bitwise identical."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((24, 6))
    y = rng.integers(0, 3, 24)
    seen = []

    class Counted(distribute.MirroredStrategy):
        def _all_reduce(self, buckets, receive):
            seen.append(None if receive is None else str(receive[0][0].device))
            super()._all_reduce(buckets, receive)

    weights = {}
    for name, ops in (("nccl", distribute.NcclAllReduce()),
                      ("to1", distribute.ReductionToOneDevice("/gpu:1")),
                      ("hierarchical", distribute.HierarchicalCopyAllReduce())):
        s = Counted(["cuda:0", "cuda:1"], cross_device_ops=ops)
        assert s.all_reduce_method == ("nccl" if name == "nccl" else "copies"), name
        with s.scope():
            pdt.manual_seed(0)
            net = nn.Sequential(nn.Linear(6, 8, dtype=pdt.float64), nn.Tanh(),
                                nn.Linear(8, 3, dtype=pdt.float64))
        seen.clear()
        pdt.reset_transfer_stats()
        s.fit(net, X, y, nn.CrossEntropyLoss(), optim.SGD(net.parameters(), lr=0.1),
              epochs=1, batch_size=8, verbose=0)
        collective = pdt.transfer_stats()["collective"]["count"]
        assert collective == (3 if name == "nccl" else 0), (name, collective)
        assert seen == [{"nccl": None, "to1": "cuda:1", "hierarchical": "cuda:0"}[name]] * 3
        ws = [[p.detach().cpu().numpy() for p in r.parameters()] for r in s.replicas(net)]
        assert all(np.array_equal(u, v) for u, v in zip(*ws)), name
        weights[name] = ws[0]
    for name in ("to1", "hierarchical"):
        for u, v in zip(weights[name], weights["nccl"]):
            np.testing.assert_allclose(u, v, rtol=0, atol=1e-12)


@pytest.mark.cuda
def test_nccl_all_reduce_on_a_split_gpu_is_refused_and_the_copies_train():
    """Two logical devices of one GPU: NcclAllReduce is refused with the reason (NCCL
    needs one rank per physical GPU); ReductionToOneDevice('cuda:1') trains there."""
    out = run_split("""
        from pydevtensor import distribute
        r = {}
        try:
            distribute.MirroredStrategy(['cuda:0', 'cuda:1'],
                                        cross_device_ops=distribute.NcclAllReduce())
        except RuntimeError as e:
            r['refused'] = str(e)
        s = distribute.MirroredStrategy(['cuda:0', 'cuda:1'],
                                        cross_device_ops=distribute.ReductionToOneDevice('cuda:1'))
        with s.scope():
            pdt.manual_seed(0)
            net = nn.Sequential(nn.Linear(4, 3))
        rng = np.random.default_rng(0)
        X = pdt.from_numpy(rng.standard_normal((16, 4)).astype('float32'))
        y = pdt.from_numpy(rng.integers(0, 3, 16))
        hist = s.fit(net, X, y, nn.CrossEntropyLoss(), optim.SGD(net.parameters(), lr=0.5),
                     epochs=3, batch_size=8, verbose=0)
        ws = [[p.detach().cpu().numpy() for p in m.parameters()] for m in s.replicas(net)]
        r['same'] = all(np.array_equal(u, v) for u, v in zip(*ws))
        r['loss'] = hist.history['loss']
        r['method'] = s.all_reduce_method
        print(json.dumps(r))
    """)
    assert "NCCL needs distinct physical GPUs" in out["refused"], out
    assert "cross_device_ops=ReductionToOneDevice()" in out["refused"], out
    assert out["same"] and out["method"] == "copies"
    assert out["loss"][-1] < out["loss"][0]
