"""A typed training script using nn and optim: tests/test_typing.py runs mypy --strict on
it (it is never imported by pytest), so nn and optim stay annotated for users."""
from collections import OrderedDict

import pydevtensor as torch
from pydevtensor import nn, optim

dev: torch.device = torch.try_gpu()
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1, bias=True))
net = net.to(dev)
same: nn.Sequential = net.cpu().to(dev).train().eval().train(True)
first: nn.Module = net[0]
layers: int = len(net)
params: list[nn.Parameter] = list(net.parameters())
named: list[tuple[str, nn.Parameter]] = list(net.named_parameters())
state: OrderedDict[str, torch.Tensor] = net.state_dict()
net.load_state_dict(state)
loss_fn = nn.MSELoss()
ce = nn.CrossEntropyLoss(reduction="sum")
sgd = optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
adam = optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.999))
x = torch.randn(16, 4, device=dev)
y = torch.randn(16, 1, device=dev)
for _ in range(2):
    for opt in (sgd, adam):
        opt.zero_grad()
        loss: torch.Tensor = loss_fn(net(x), y)
        loss.backward()
        opt.step()
value: float = loss.item()
net.zero_grad(set_to_none=False)
# a checkpoint, and resuming from it
checkpoint: dict[str, object] = {"model": net.state_dict(), "optim": adam.state_dict(),
                                 "epoch": 2}
torch.save(checkpoint, "checkpoint.pdt")
opt_state: dict[str, object] = sgd.state_dict()
sgd.load_state_dict(opt_state)

# gradient clipping, schedules, data loading and one_hot (D2L's names)
from pydevtensor.nn import functional as F
from pydevtensor.utils import data

total: torch.Tensor = nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
nn.utils.clip_grad_value_(net.parameters(), 0.5)
scheduler = optim.lr_scheduler.StepLR(sgd, step_size=2, gamma=0.5)
cosine = optim.lr_scheduler.CosineAnnealingLR(adam, T_max=10)
scheduler.step()
rates: list[float] = scheduler.get_last_lr() + cosine.get_last_lr()
saved: dict[str, object] = scheduler.state_dict()
dataset = data.TensorDataset(x, y)
loader = data.DataLoader(dataset, batch_size=4, shuffle=True)
batches: int = len(loader)
labels: torch.Tensor = F.one_hot(torch.tensor([0, 2, 1]), num_classes=3)

# lazy initialization (D2L's builders' guide)
lazy = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
lazy_out: torch.Tensor = lazy(torch.rand(2, 4))

# the optimization chapter and beyond: more optimizers, schedules, losses and fills
ams = optim.AdamW(net.parameters(), lr=1e-3, amsgrad=True, maximize=False)
others: list[optim.Optimizer] = [optim.Adamax(net.parameters()), optim.NAdam(net.parameters()),
                                 optim.RAdam(net.parameters(), decoupled_weight_decay=True)]
cycle = optim.lr_scheduler.OneCycleLR(ams, max_lr=0.01, total_steps=100, three_phase=True)
warm = optim.lr_scheduler.LinearLR(sgd, start_factor=0.1, total_iters=5)
chain = optim.lr_scheduler.SequentialLR(sgd, [warm, scheduler], milestones=[5])
restarts = optim.lr_scheduler.CosineAnnealingWarmRestarts(adam, T_0=10, T_mult=2)
restarts.step(0.5)
plateau = optim.lr_scheduler.ReduceLROnPlateau(sgd, mode="min", patience=3)
plateau.step(value)
weighted = nn.CrossEntropyLoss(torch.ones(3), ignore_index=-100, label_smoothing=0.1)
bce: torch.Tensor = nn.BCEWithLogitsLoss(pos_weight=torch.ones(1))(x, y.sigmoid())
kl: torch.Tensor = F.kl_div(x.log_softmax(1), x.softmax(1), reduction="batchmean")
bce_f: torch.Tensor = F.binary_cross_entropy_with_logits(x, y.sigmoid().expand(16, 4))
w0: torch.Tensor = nn.init.trunc_normal_(torch.empty(3, 4), std=0.02)
w1: torch.Tensor = nn.init.orthogonal_(nn.init.eye_(torch.empty(3, 4)), gain=2.0)

# normalisation layers, embeddings, buffers and containers (D2L's batch normalization,
# RNN and transformer chapters)
bn_net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8, momentum=None), nn.ReLU())
bn_out: torch.Tensor = bn_net(x)
running: list[tuple[str, torch.Tensor]] = list(bn_net.named_buffers())
bn_net[1].register_buffer("extra", torch.zeros(8), persistent=False)
buffers: list[torch.Tensor] = list(bn_net.buffers())
ln: torch.Tensor = nn.LayerNorm([4], eps=1e-6, bias=False)(x)
emb = nn.Embedding(10, 4, padding_idx=0)
tokens: torch.Tensor = emb(torch.tensor([[1, 2], [0, 9]]))
heads = nn.ModuleDict({"out": nn.Linear(4, 2)})
pl = nn.ParameterList([nn.Parameter(torch.ones(2))])
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2))})
sim: torch.Tensor = F.cosine_similarity(F.normalize(x), F.layer_norm(x, (4,)))
dist: torch.Tensor = F.pairwise_distance(x, y.expand(16, 4))
bnf: torch.Tensor = F.batch_norm(x, None, None, training=True) + F.embedding(
    torch.tensor([1]), emb.weight)
