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
