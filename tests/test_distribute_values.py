"""MirroredStrategy's calls for custom training loops, after tf.distribute's: run,
reduce (ReduceOp), gather, experimental_local_results and experimental_distribute_dataset
(Note [run and reduce] in pydevtensor/_distribute_values.py), on logical CPU devices in
fresh interpreters (tests/test_distribute.py's pattern).  Values are compared with NumPy;
the custom loop's gradient with one device's autograd in float64 within 1e-12 (measured:
about 1e-16)."""
import re

import numpy as np
import pytest
from test_distribute import run, run_json

import pydevtensor as pdt
from pydevtensor import distribute


def test_run_reduce_gather_and_the_distributed_dataset_split_as_fit():
    out = run_json("""
        s = distribute.MirroredStrategy(DEVICES[:3])
        X = np.arange(14.0).reshape(7, 2)
        got = {}
        for b in s.experimental_distribute_dataset([pdt.from_numpy(X)]):
            local = s.experimental_local_results(b)
            got['shards'] = [v.numpy().tolist() for v in local]
            got['devices'] = [str(v.device) for v in local]
            r = s.run(lambda x: (x.sum(0), {'dev': pdt.zeros(1)}), args=(b,))
            got['made_on'] = [str(v.device) for v in s.experimental_local_results(r[1]['dev'])]
            got['sum'] = s.reduce('SUM', r[0]).numpy().tolist()
            got['mean'] = s.reduce(distribute.ReduceOp.MEAN, r[0]).numpy().tolist()
            got['mean0'] = s.reduce('MEAN', b, axis=0).numpy().tolist()
            got['sum0'] = s.reduce('SUM', b, axis=-2).numpy().tolist()
            g = s.gather(b, axis=0)
            got['gather'] = [g.numpy().tolist(), str(g.device)]
        got['plain_mean'] = s.reduce('MEAN', pdt.tensor([1.0, 2.0])).numpy().tolist()
        got['plain_sum0'] = s.reduce('SUM', pdt.tensor([1.0, 2.0]), axis=0).item()
        ints = s.run(lambda k: pdt.tensor(k), args=(distribute.PerReplica([1, 2, 4]),))
        got['int_mean'] = s.reduce('MEAN', ints).item()
        odd = [v.numpy().tolist() for b in s.experimental_distribute_dataset(
            [(np.arange(2.0), np.arange(2))]) for v in s.experimental_local_results(b[1])]
        got['empty_shard'] = odd
        print(json.dumps(got))
    """, n=3)
    X = np.arange(14.0).reshape(7, 2)
    assert out["shards"] == [X[:3].tolist(), X[3:5].tolist(), X[5:].tolist()]
    assert out["devices"] == out["made_on"] == ["cpu:0", "cpu:1", "cpu:2"]
    per = [X[:3].sum(0), X[3:5].sum(0), X[5:].sum(0)]
    assert out["sum"] == np.sum(per, 0).tolist()
    np.testing.assert_allclose(out["mean"], np.sum(per, 0) / 3, rtol=1e-15)
    np.testing.assert_allclose(out["mean0"], X.mean(0), rtol=1e-15)
    assert out["sum0"] == X.sum(0).tolist()
    assert out["gather"] == [X.tolist(), "cpu:0"]
    assert out["plain_mean"] == [1.0, 2.0] and out["plain_sum0"] == 9.0
    assert out["int_mean"] == pytest.approx(7 / 3, rel=1e-6)
    assert out["empty_shard"] == [[0], [1], []]


def test_a_custom_loop_with_run_and_reduce_gives_the_global_batch_gradient():
    """Each replica sums its shard's loss and back-propagates; reduce('SUM') of the
    gradients divided by the batch is the gradient of the batch's mean loss on one
    device; shards of 4/3/3 and 1/0/0 samples (an empty one gives zeros)."""
    out = run_json("""
        s = distribute.MirroredStrategy(DEVICES[:3])
        with s.scope():
            net = mlp('float64')
        ref = mlp('float64')
        X, y = data(11, 'float64')
        loss = nn.CrossEntropyLoss(reduction='sum')
        models = distribute.PerReplica(s.replicas(net))

        def step(model, batch):
            model.zero_grad()
            loss(model(batch[0]), batch[1]).backward()
            return [p.grad if p.grad is not None else pdt.zeros_like(p)
                    for p in model.parameters()]

        errs = []
        batches = [(X[:10], y[:10]), (X[10:], y[10:])]
        for b, (xb, yb) in zip(s.experimental_distribute_dataset(batches), batches):
            grads = [s.reduce('SUM', g) / xb.shape[0] for g in s.run(step, args=(models, b))]
            ref.zero_grad()
            nn.CrossEntropyLoss()(ref(xb), yb).backward()
            errs += [float(np.max(np.abs(g.numpy() - p.grad.numpy()))) for g, p in
                     zip(grads, ref.parameters())]
        print(json.dumps(dict(err=max(errs), n=len(errs))))
    """, n=3)
    assert out["n"] == 12 and out["err"] <= 1e-12, out


def test_bad_input_to_the_cross_replica_calls():
    out = run("""
        s = distribute.MirroredStrategy(DEVICES[:2])
        r = s.run(lambda k: pdt.ones(k), args=(distribute.PerReplica([1, 2]),))
        cases = [
            lambda: s.reduce('PROD', r), lambda: s.reduce(3, r), lambda: s.reduce('SUM', r),
            lambda: s.reduce('SUM', pdt.ones(2)), lambda: s.reduce('SUM', r, axis=1),
            lambda: s.reduce('SUM', r, axis=1.0), lambda: s.reduce('SUM', [1, 2]),
            lambda: s.reduce('SUM', distribute.PerReplica([pdt.ones(1)] * 3)),
            lambda: s.gather(s.run(lambda: pdt.ones(2, 2)), axis=2),
            lambda: s.gather(distribute.PerReplica([pdt.ones(2, 1), pdt.ones(2, 3)]), axis=0),
            lambda: s.run(1), lambda: s.run(print, args=pdt.ones(1)),
            lambda: s.run(print, kwargs=[1]),
            lambda: s.run(print, args=(distribute.PerReplica([1]),)),
            lambda: s.run(lambda: 1 / 0),
            lambda: s.experimental_distribute_dataset(3),
            lambda: list(s.experimental_distribute_dataset([(pdt.ones(3), pdt.ones(2))])),
            lambda: list(s.experimental_distribute_dataset([pdt.tensor(1.0)])),
            lambda: list(s.experimental_distribute_dataset([[1, 2]])),
        ]
        report(cases)
    """, n=2)[0].splitlines()
    expected = [
        ("ValueError", "'PROD' is not a valid ReduceOp"), ("TypeError", "got int"),
        ("ValueError", r"shapes \[\(1,\), \(2,\)\]"), ("ValueError", "not a PerReplica"),
        ("IndexError", "axis 1 is out of range for a value of shape"),
        ("TypeError", "axis must be an int, got float"),
        ("TypeError", "expected Tensors or a PerReplica of Tensors, got list"),
        ("ValueError", "a PerReplica of 3 values for 2 replicas"),
        ("IndexError", r"axis 2 is out of range for a value of shape \(2, 2\)"),
        ("ValueError", "may differ only along axis 0"),
        ("TypeError", "fn must be callable, got int"), ("TypeError", "args must be a tuple"),
        ("TypeError", "kwargs must be a dict, got list"),
        ("ValueError", "a PerReplica of 1 values for 2 replicas"),
        ("ZeroDivisionError", "division by zero"),
        ("TypeError", "must be an iterable of batches, got int"),
        ("ValueError", r"\[2, 3\] samples"), ("ValueError", "0-d"), ("TypeError", "got int"),
    ]
    assert len(out) == len(expected), out
    for line, (exc, pattern) in zip(out, expected):
        assert line.startswith(exc + " ") and re.search(pattern, line), (line, pattern)


def test_reduce_op_and_per_replica():
    assert distribute.ReduceOp("SUM") is distribute.ReduceOp.SUM
    assert [op.value for op in distribute.ReduceOp] == ["SUM", "MEAN"]
    p = distribute.PerReplica([pdt.ones(1), 2])
    assert p.values[1] == 2 and repr(p).startswith("PerReplica:{\n  0: tensor([1.])")
    s = distribute.MirroredStrategy(["cpu"])
    assert s.experimental_local_results(5) == (5,)
    assert s.run(lambda a, b=0: a + b, args=(1,), kwargs={"b": 2}) == 3
    assert s.gather(pdt.ones(2), axis=0).shape == (2,)
    with pytest.raises(ValueError, match="'sum' is not a valid ReduceOp"):
        s.reduce("sum", pdt.ones(1))
    # MultiWorkerMirroredStrategy's workers would need each other: refused, not local
    worker = object.__new__(distribute.MultiWorkerMirroredStrategy)
    worker._devices = (pdt.device("cpu", 0),)
    for call in (lambda: worker.run(print), lambda: worker.reduce("SUM", pdt.ones(1)),
                 lambda: worker.gather(pdt.ones(1), 0),
                 lambda: worker.experimental_distribute_dataset([])):
        with pytest.raises(NotImplementedError, match="only fit"):
            call()


def test_all_reduce_inside_run_trains_each_replica_as_one_device():
    """TensorFlow's custom loop: inside run each replica back-propagates its shard's
    share of the batch's mean loss, all-reduces the gradients through
    get_replica_context() and steps its own SGD; the replicas stay bitwise identical and
    equal one device's training within 1e-12 in float64 (3 replicas, 11 samples in
    batches of 4: shards 2/1/1 and 1/1/1).  A replica that raises stops the others
    waiting in all_reduce, and run raises its error."""
    out = run_json("""
        s = distribute.MirroredStrategy(DEVICES[:3])
        with s.scope():
            net = mlp('float64')
        ref = mlp('float64')
        X, y = data(11, 'float64')
        opts = distribute.PerReplica([optim.SGD(r.parameters(), lr=0.2, momentum=0.5)
                                      for r in s.replicas(net)])
        models = distribute.PerReplica(s.replicas(net))
        ref_opt = optim.SGD(ref.parameters(), lr=0.2, momentum=0.5)
        loss = nn.CrossEntropyLoss(reduction='sum')
        batches = [(X[a:a + 4], y[a:a + 4]) for a in range(0, 11, 4)]

        def step(model, opt, batch, size):
            ctx = distribute.get_replica_context()
            opt.zero_grad()
            (loss(model(batch[0]), batch[1]) / size).backward()
            for p in model.parameters():
                p.grad = ctx.all_reduce('SUM', p.grad)
            opt.step()
            return ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync, ctx.strategy is s

        for epoch in range(2):
            for b, (xb, yb) in zip(s.experimental_distribute_dataset(batches), batches):
                ids = s.run(step, args=(models, opts, b, xb.shape[0]))
                ref_opt.zero_grad()
                nn.CrossEntropyLoss()(ref(xb), yb).backward()
                ref_opt.step()
        same = all(np.array_equal(a, c) for r in s.replicas(net)[1:]
                   for a, c in zip(arrays(net), arrays(r)))
        err = max(float(np.max(np.abs(a - c))) for a, c in zip(arrays(net), arrays(ref)))

        def fails_on_one(k):
            ctx = distribute.get_replica_context()
            if ctx.replica_id_in_sync_group == k:
                raise KeyError('replica failed')
            return ctx.all_reduce('MEAN', pdt.ones(2))

        errors = []
        for k in (0, 2):
            try:
                s.run(fails_on_one, args=(k,))
            except Exception as e:
                errors.append(repr(e))
        mean = s.run(lambda: distribute.get_replica_context().all_reduce(  # 1, 2, 3 times
            distribute.ReduceOp.MEAN, pdt.tensor([1.0, 2.0]) * (1 + int(str(
                pdt.get_default_device())[-1]))))
        try:
            s.run(lambda: distribute.get_replica_context().all_reduce(
                'SUM', pdt.ones(distribute.get_replica_context().replica_id_in_sync_group + 1)))
        except ValueError as e:
            errors.append(str(e))
        with s.scope():
            cross = distribute.get_replica_context()
        print(json.dumps(dict(same=same, err=err, ids=[list(p.values) for p in ids], errors=errors,
                              mean=[v.numpy().tolist() for v in mean.values],
                              mean_dev=[str(v.device) for v in mean.values],
                              cross=cross is None,
                              default=distribute.get_replica_context().num_replicas_in_sync)))
    """, n=3)
    assert out["same"] and out["err"] <= 1e-12, out
    assert out["ids"] == [[0, 1, 2], [3, 3, 3], [True] * 3]  # tuples regrouped
    assert out["errors"][:2] == ["KeyError('replica failed')"] * 2, out
    assert "shapes [(1,), (2,), (3,)]" in out["errors"][2], out
    assert out["mean"] == [[2.0, 4.0]] * 3 and out["mean_dev"] == ["cpu:0", "cpu:1", "cpu:2"]
    assert out["cross"] and out["default"] == 1


def test_replicas_with_different_numbers_of_all_reduce_calls_raise():
    """A replica that returns while the others wait in all_reduce (or calls it once more
    than they do) made run wait forever; now those still in all_reduce raise TensorFlow's
    RuntimeError, run raises it, and the strategy still runs a matched all_reduce after."""
    out = run_json("""
        import threading
        s = distribute.MirroredStrategy(DEVICES[:3])

        def skips(k, extra):
            ctx = distribute.get_replica_context()
            v = pdt.ones(2)
            if ctx.replica_id_in_sync_group == k and not extra:
                return v
            v = ctx.all_reduce('SUM', v)
            if ctx.replica_id_in_sync_group == k:
                v = ctx.all_reduce('SUM', v)
            return v

        results = []
        for k, extra in ((1, False), (0, False), (2, True), (0, True)):
            box = []
            def call():
                try:
                    s.run(skips, args=(k, extra))
                    box.append('no error')
                except Exception as e:
                    box.append(type(e).__name__ + ': ' + str(e))
            t = threading.Thread(target=call, daemon=True)
            t.start()
            t.join(20)
            results.append(box[0] if box else 'hang')
        total = s.run(lambda: distribute.get_replica_context().all_reduce('SUM', pdt.ones(2)))
        print(json.dumps(dict(results=results, total=[v.numpy().tolist() for v in total.values])))
    """, n=3)
    for r in out["results"]:
        assert r.startswith("RuntimeError: Some replicas made a different number of "
                            "all_reduce() calls"), out
    assert out["total"] == [[3.0, 3.0]] * 3
