"""The importer's erfinv against PyTorch's on 200001 points of [-1, 1]:
relative error within 4 float32 ulp (4.8e-7; measured 2.4e-7) and 1e-12 in
float64 (two Newton steps square the polynomial's 4e-7; measured 9e-14 near
+-1, where erf is flat), the same infinities at +-1 and NaN outside."""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import torch  # noqa: E402
from mpt_import_torch import decomp  # noqa: E402

for dtype, bound in ((torch.float32, 4 * torch.finfo(torch.float32).eps), (torch.float64, 1e-12)):
    x = torch.linspace(-1, 1, 200001, dtype=dtype)
    ref, ours = torch.erfinv(x), decomp.erfinv(x)
    finite = torch.isfinite(ref) & (ref != 0)
    rel = ((ours - ref).abs() / ref.abs())[finite].max().item()
    same_specials = torch.equal(ours[~finite], ref[~finite])
    outside = decomp.erfinv(torch.tensor([1.5, -2.0], dtype=dtype)).isnan().all().item()
    print(f"erfinv {str(dtype)[6:]}: within {bound:.2g}: {rel <= bound}, ends and zero: {same_specials}, "
          f"outside NaN: {outside}")
