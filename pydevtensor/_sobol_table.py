"""The direction numbers of the Sobol' sequence (pydevtensor.quasirandom.SobolEngine): the
first MAXDIM rows of S. Joe and F. Y. Kuo's table new-joe-kuo-6.21201 ("Constructing Sobol
sequences with better two-dimensional projections", SIAM J. Sci. Comput. 30 (2008)
2635-2654; https://web.maths.unsw.edu.au/~fkuo/sobol/), the table PyTorch's SobolEngine
and SciPy's qmc.Sobol use.  PyTorch ships all 21201 dimensions; 1111 are shipped here
(about 11 KB; tools/gen_sobol_table.py packs them from the published file), enough for
the usual uses; larger dimensions are refused by name.

Each row d = 2..MAXDIM of the table is (s, a, m_1..m_s): the degree s of a primitive
polynomial x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1 over GF(2), its inner coefficients a
as an (s-1)-bit integer, and the initial direction integers m_i, odd and below 2^i.  They
are packed as bits, most significant first: s in 4 bits, a in s-1 bits, then m_2..m_s in
i-1 bits each (m_i with its low bit, always 1, dropped; m_1 is always 1), row after row;
then base64.  Dimension 1 is the van der Corput sequence (all m_i = 1).
"""
import base64
import functools
import threading

import numpy as np

MAXBIT = 30
MAXDIM = 1111

_PACKED = (
    "Es2HBCSk2UkoVEiV3ZW0AXQVXsvYNh4Zo9KaE24aY5ia07MbKU+cH2z5uJ8x4nHOOL7kaAxpzpkjq6cW+PdVWaPO5iJo"
    "nfeBIDwdMl15TMco9O1gberlukPlCWon3SuAz8Nh71+3G8w/1Q7QgdP5mPUFd/6+wgtKpZvkJpdrGEhe/RaC0MecfAnh"
    "lBJQc0NFJUdOhx6ELLkQ6XJOjiN68+xsVCFfhwjCDdXLEZ+4QkjjnFv/dUeilq1CkIy5C9bvkNtEGwQikQCiZYKrkWiw"
    "57P5kZFVD7RbksVR2HO1kvXmygO/k079NMRuk3Bs++8pk7W87YxQk+Oy6auAlDFrX3ySlKdUbiehlRSg1AFBlSescH3t"
    "lXwSoMoFlbO8w3/zleoL9i0/lnJBPr92loTt6XmQltVjXVv1l6CAw2isl8PDnIMQmJlOtGdXmKgdr/8YmPx32lWYmRRA"
    "LnxKmYKLg4ZPmdFMukZwmnq3vjKHmt0XDJ05mwYu3yPRm1KsWjYlm2fMsLzim55Qx43gm/nmaawHnCACEki9nHnepwbx"
    "naZltUHXncpKJeGunjrRqZ2UnlMVA3hOnm/ziF5qnqYTcilsnsulpbh8nxxuoP7vn0SUSzpsn9r6SD1JoCTkJLi3uWga"
    "0U3/6G86CcaDr+NkroLHJcPhanuhl9JhEIJcKG+U9DKT9SogI/8cqz4qiK40wS/wVKMUdIwE5/Eo18C+NupD+jmqHqXb"
    "Lp6PNyeJYC4Ro/tu59foOqkNJhIzjUwKRm33yOCaqpIk/z6tbROkxw3IZ3DYaTwdG0Wa3ipQqRlZ2nEalX21rQiBcqWv"
    "F8hjJcdphGxe5rdk6mPUqlTKpyaZaL7yQ8c4poaAs4vWSmnH2WDptDJqeVZU/PQVmp99wvpCgfin6csys56mKhJnBvLu"
    "YkqFSA7oVuIGolNU/tO3aajbMf5WDGCqQ/LDJqPiSpOk3H4e0WKlpe/uL6DxqeEW4C+MAup+fmxGTbL6okZpZ+4iZqtU"
    "5shLUAGrANiIC3ezqtLe4xoNVrq34WJUo+6yr9Wvk1d/oaxZ7DOB/nNrHcE9edvPqsgWFRJJzLqzlxA708f0rRlMkHyS"
    "6WtN2CbfllJq1QgM2xRbNrWT3x2GviWtivyk/1+rq31U2elsfqrjbJ7WMjACuTLrKmk16a7Fsj531wVr2uVP0VE8+vy8"
    "9F/Mu2q/gZhHY5lnsAr9xw9OBCdVgX6K66h28RjsFVzRtyWTUuVgssqDIeTFrMsI4A9DrXuxNthi9EBN2sbNHsMjdCOu"
    "LthBlhx3lPCN0vcFsPbFitmeAIDtiNGOQ7A15wssSitBxzlb211iffjgv6Lvf3sVIGJtg0ReBFiw4IziiHo2xsZ3Mx7s"
    "OOMNdjQzZ1YTYo3CscCW0+97rHWtjmebpXa13h7sdRdZtLhRjbVj1+QmpALarushuErHyTpfytkTdgAhvWrg/skgLkJu"
    "huBpVkoT7mRM3FPYsnei2QT7afflk8wEVxu0xcxsomWWrDoyKYVlJyjLRmsbUAsqCmd3kiid/tlbj3BhCncYDsuauVeN"
    "f6nftl1+gikY94JYsv9n4gu5diN9mCPFf75CWIYsxx7GVjJUlktmr88ypRBcifs1vbNksioGsdm5/Lasu4MOzs44eYVN"
    "BS+MVnY1paGXJUdLs8osFBgFI2w1n3Ep+E2bW4rtADF13VG0of1oGAs+IqkrUptCfURkGKFFsVoVBVeQhxxVCtFGUZ1i"
    "T3WdtpJIqnM/lMs+tMG92xvLBVfNpsjNFjO+laltPJgh1HnC7DFp+2RYGF4vLutQoKjegMQXNdqQoMr6Zy1GxtTrgkbe"
    "KKmwVqmaHsemt5AYtVQ8/jSesZHdqyqtW0BGjSItWkkDl9sV7ktrUPX6mIxdqbtb1tJ4Vf7KSFrpFqSN5NHbDtd0W799"
    "YYnslrxezWGmF5V5tfd7qi1376P1sDrQSCfwy0xthHnfwIC378tsQ+Jz5mmJz7tmXJYXV/Ob8Vs+pTfN6EK1ctoEkTqx"
    "n79bVtKTLAWSrbBdtrCGXUukTQCVtePjJv1N2YYtsjIc2Xf0x/VtvZ3xGfp1b5tvvzfZXuFSlNuH9go876t1MtxaaZKR"
    "D1BkNuSIoIAQKpELtykZMQVvXkX9uvsxKpPpiY2t24CylAYUpvdu8fPHbXHXP4t5ONJBIoi8MlvbP6yQXlIkNt7nlPAp"
    "XNOz9vnme5A8u/+4t9tDUsHxmAlVwLzZpN3/uZ4uBjQzJcEPPaFwZZPSidSEhHuD2PgTTOp6n9xWCRnVNirvXuMApC1C"
    "MNe9dxrMlLWisME4uOUTxzCIznCdyE1FVy3xEV6uRN697ffAendyX5Axbh+VPPuTVlKIYDh8xdycP9BqcQ1gcuWcdGjo"
    "IEJXFy/N6Wo6GBH+uY3vFzMR+8m9zMriTh8p1zduaaqL+o7wYrtzUbj8BLDhlgucUvLLnYt1/VzoKizucyCLsue1Vrv0"
    "mYLOt0C0CteVX0hsuhxRV9BypXb10dkk0FGES2Vuk2zA7vhIR+V0tCi6rQuhAYuoNZWIDTkr791HE4imgcqYIuqgChAq"
    "N7Ad91YGkZlaWoAyusU4AziV8rM11vfcqrjvD1tuuIz3u2kG2PN2S7GkdkDqtBuz5A/WIJI1EN2oStADkmg4Cu3UNttQ"
    "zWlXN29rkV79S0Nfu5F6Bd9rzZud3XaI5Zs4aT1u7alJlQ4uRCt3gQ9v4yja8eu86wg+kJFVpt31s82upMMXavAlvRgG"
    "a0t4d4cwErV24fY1vEPMFoiKOvbN4n79RtAb/D6vFXwgf0UH6YN4zUWkLH3OfDvHHT92P5Dl1N5GvImsiduoQvJfAiy4"
    "fGo/F5VnWkpp2rE7vL83fsi+5T1d5xRkYIOTYD7vPe5gLMFp4fN59UoTl3mEFfvQD61rZweft16SXVmZKuni0vTwzMP5"
    "hsb616iVMHHO7DE5vXbBmYeXLNBl7PyctZgGhsWvbmTpaUSHpN17yoY9FGSyyNvfHN2cmYPC7V8KjmdT+TymXvjGT8SZ"
    "5JWhd8xxedJjua+bvmytXOY9wt499cKt24Xv87avtT9zcIsb7ot9tCAZ3fyCHxvugHqsIU/Mx9+CDuLB3jyPzvyCSLKD"
    "FNSmN+XCfE3sAjT9vzbdXxyXUqIV+mcn8k3CVCov1uR6thcmeZl+1iqY1wrrC4v5vJhyJeK+Pd/TqUSpvP9oYv8ucPsp"
    "LhFKV/pmSroSGU3DwFLY98oR2X3TnmA0gG+dW+mAuC6wHt9w1g7jeViAuA+tPWVPZyM59iwJir9UEoehncfmBodrBe0/"
    "8EKDAwOu5362C1tzMt2CDd3lqsoCM9H3wR5rya2sHU7XpWCRxYpoljYjxRJwTsJASrZ3/RQZmCnjd3q9/XXB+AwVe1cZ"
    "Ef5hkJyeCwH5IaSTgaS7hwWqzR5vnsLWZn2DCqtS/295kXiUwbNna8yIZgQW3+DsD63wQx2JqEswd8jHhtGySozAeEGs"
    "KI+iYFa/11wjdu84erNBEoguEePVEO8fpBT52wmYmO2nicAR1uGE5IL8onjlgelZwn4NCWqXkA8+gWFcNGHaJ+4rJLUw"
    "sC3nIB/IeVd0uFl9iEiaVPKgSUww7qRP62dDL1ImGOv9gSEQCxtfxwyBpoSV0x+va2mGcfM+t5MwF8axwz+xe4JSTEDg"
    "CuGmH6uo9TJJLH+w3AwgRXMJa/VdOHMpaE2NMN2o8rw6Ox49m+9UZkymHU333V5b3aafqxAYf9+64S4N9A+IYwKfKx8X"
    "hr9RxDYR3dnEzeV3W+InKVRKUFleJlvxF2MmURMZH3DI+IzzmphQUAub1vxHUk23YZTHOTJOJTIs8Dwd9jPRpxKxcG15"
    "EsTomTuJpSrheP+Iv1+RxQ8s6H5NdyVszeKO44JFHQi6JCfxU00EXhWwD8hC+LJzmTdGWPisSLxcWyrezQC8TNbGLrwu"
    "QyWle6Q6TxdwgLYgdsPbmeOL1ivrJGrrY2i4xglGofYEb98QmWMjQp4rZ7ZnGQ+xlR9kD0SwLElpuMsaJKXJ8RUWyCxq"
    "QRfC+RzXKuaONeFOyKX8hgHWzxxW6zHPwYEGMb2OMp37VVxD8GGdx0Jxl5trPU3wX2OilY+qgaSe+dWx3Vyi28gL8KFV"
    "2PEtrJFi+6k7+Yx62msqwI8elK7OPZ1YlApP7gWtrx75O+F/YamignuPgvTl6jRt4+o6yFanzdDT+TmyYGQuq02sbT6n"
    "65QyJFiM+F7uhm40+RLfhFLXNRzTsRyLh3eSUV1rtZ6WR398zqaIk88L+yRrbIMGLqkK1cGSa7LKTFuJh90LyUE0tFRL"
    "Tvk/J2SyutWcmh4zsidyXsNgPOl0ABaN+TFwOux1zCl6yoybEX8Y3xv6AUr2TeQnTY8PSp7layclhQm/auLW0/uTn9An"
    "eUa22q7VyeZbTbn6Y4zrX+UNKq7J0bZroh9yivPsoc5R3XIceUZQ8OSnveu8xYymlKS1oMr7X/WuVF8Brzt0CdX/8ytC"
    "gPWM3ElL+v2Vw68bDvzk+WgayvTCXA33FjyF32WFxqW4jxuMqVryxNcFZdcZfuru2WPUueNqreQYvFy1cfYPR+kH3G12"
    "XIVIUl6gDkp8yy6a7W+z3LPJ09eXfqzqA935fQ1Ky8G2+LcjzOn3eeXp/LuSgX8bKY6zASvnTGKz8ZSnWYIUk16z/H9c"
    "27zBaX2EOFqXofI+YTpk/F1selBOFzExDOciv5iQyIeZDnUbX/pAi9YvzJ99GEvWahBgU2ZS9ORTvIJ2eoWzLqcQ55JR"
    "L/UReZiXLE02/YHwHYzMnJ7qKWUH1llOZnIq3Ipj8eLdvzPJdT6vqgkM7VmaDGB7mFzUBboBzSPKuXoEbR1wbWahZUiq"
    "BOAHOmbzVAVHPZSSVD9SmatY0AvJ4sAKrhzXXBHktsAbqADGbCpkLYpUpeihEzYgxqiQ3XinyOecKbpZBWq0x0aNzhmW"
    "CoZOhFLOAmcXNebYHrv0d+yzkT6coTtbYKbw+coSm1I9oWqvKLzmfQGbo7OTI9++c5rEJGITKh6N0zo5XVroSCpmiTGd"
    "xsokwDiKeaxZzxDDjhIMB4gOSOeNlD6yCEpTUPdzyc04BCp5qUmxee41RxvF+cFe6xz5hBhmjxWFu0dufdCVdcHE1AwY"
    "6z72ohsCcB5u5sufkk53AcgmIh8z0A0Skpy8V9U6d9VLQE+DisQOzhl7Ty2dAaBzaSdT4sMiHft0CnYjNUtoQ6pjT8/Q"
    "Mrt5eb3T15jXjxNA3kKGxExzpVSwS10EVQ4KkyvHp7szfvQRoPOsNqBw9sCE8NBPUI+j3vSGSRAkK0FLX74K8AwwQUVm"
    "PQVy4DkbK51patVXNBdyNQnaciUUg6wT0F4xBN5PPUxPdh+vQYVPS6DtV9I8BLKdBkvv5PHBzp5oM6X0HCK2PerXXvDv"
    "/KXQeUCbQqiQwOubSVdCGTvVTX/ws8Ii9Z0IqhFS7R15bL4IirQlMGoTHkmH+bf4l9CX/oxWFrZyCwZSS0J0HsrnEOPu"
    "u0QQ7QocENxX3xypH9rqtCzFiiS+UkLjxPSp0LXGyl8y6mrGw34zQvGY6NaRvfxg5DV9DEq/tGZ6hkGHyOL0MvqDCJwg"
    "uAFFHDvQzvj09IBkdLJ2VutDfZ9MWwXbnZFQix0OADCF8MCdJb1GEjQ45Ckf21xPfA5U7dDm5SulkCODHt4mO0O8jrHT"
    "4U9nGad6LQ8S8V4c6USs6+OS9D4hWPb0o9Mo8Thi0P0N2edQx5to309zRDBRGRDrFgX/1VBtES/02D0gqLtqCzP0Rvkw"
    "RiaK/FQlZUTRHsPkKjVEaFPbN1dEhPh1KCJqe1fT8i0S0iiqL3ZacbW9KfRLve5vd6CQlz4f1tE8Jk7amy+igr2zA0T+"
    "LoyCyaa3y17+jRREpWHi4FQs1tAndFL0P/TAwy3hWAMV0U0XxmdXMhPuq0wjRWWpGvVhTzTJG7yNFfQPDaw2t9r48wv0"
    "WYMPCMwHoXJbdcbRd1oVKYf/7IkKiTNF7hY6ntpZkikFUl0X3uu2yu9hqpIPDTRgld0VpYsus7Igf9GTJSDoGhAAZI3/"
    "U0ZWjhERhn3tIKN4nRo4lSWsVysKVoDrNGqHbNZP3mNPL9260aw1ty3BwPd9AG6bRt0j0Lsauk5nC6G9G4qjWf24w1J9"
    "Cir0b7YJmdaDBD7hPH7Rw2fEYOomBSAP5MNHGXdo6p3POYbIUe0cqlE8BkQpAZcbr7R0YVUCw0C3LSzge9HUZhXxshYJ"
    "gSJG70djLi573SgCEM8ojR27QIFedfvVPyBvNHd8tJNuGZOa7zoi0fDnrEIu0lULUDuTR9udkokfvoa6K/Z9H8aEdceQ"
    "e6d3hwD0gUYrEUwvzsg9vVjSCZTUmLamtRUBQYtIPvHnkIOsfqTgBe0hIpd8xHSoPZZC4vSFH+sB4pFC51gmgdIeTZ9D"
    "RjJAwqqn/0ij0dijzpVzw5ZMnSKy+49Z1pOLDzEN9Iw1vGUSpUMCtq8c0jaaotpwlDQfS3dXSP7UJfT2lpKH+RLdJBD/"
    "0yD0pCsy7gZ0k3OpV35txfcZ5R3STlIuiyAstISf+YtJaRWPGO4tDhLf880l+JPUzsO4+lCWHrSYNZTvwvza+RZuqNJj"
    "lb6L9oz59XkbZ0mXzhi0SiM2lkfHTScfcCnh9Qs0f2pkdKE/YUMc6flAcvsf0ovxElbkm+qrFESbSjiqu02lcnICXPjN"
    "KQ9R6xX8ocZ08ma0pZf6PuMe1qhQ2kXSnBo0ixHDzabv1h9Kp9vIwQYcD5YAib0qrO4WFM8NK4iwujSsSwMcGf7sE2wz"
    "cNK4rY91+a2S4oIX20rvYk7aa3Rt9cHxvSw5tD3O8hjqfmxHtLF9BfrQPWZEt3cy0sqrS/Ac4x/7adcDSzKXx5PdIeMH"
    "0woNLPKS9YAZ/OOxfyh0tfwIVxOq7WEZLVDS3pptfxDqlPuoYsdLiaP6CPdjFH3+2P0ucZJFogZn3GlYa7S67tUN0NMI"
    "VkxSKNL1dsxUluiQSVUxD0wFvGjlnEJhKlNvXTAk2xjTcQMWCC/xdMIO8hoPmuGF5VAa0xaCqYUlXNJLCxHrTH5YoddK"
    "5XbqubldMlETFmbMcQPPBJ00ynlK2R9cUza4FwfTLNhY7tFTex1Lbv9M0XPcGdqTdBp6yh0zv2uH26/WOO0nfnTPddAU"
    "XwV/jgOXbtNDgZddZamudetvc00lqKpHpmbb4BsDnTTP896HdqfcA6TudNYa7kvYqron78lR01sXEsgEkHt/RwTjTXuu"
    "PzXxWHHTkSTtNhzgYuAsPKMdljj03WU+BvsnszsMz8nTelq/z0c+ZtPGU69OJVFo638k9q+UXa05Q2ibTJ6FJR79XbTn"
    "bk556bdi8Zi929OnE5WJG775Sf74B06sRUEMCwhp33BlrTrh6zb85cgvUmD+NO10t0xrHv/GQ9Mu07krhKvAjW3H2TPj"
    "TvCz8s2udAFoTI5NPBNPdD3CIvjG9N+08j/EXUvuzYQuEy3T0Bm+Nwso6CH9HadPcNB+sjL8B9XVAz0+Ni/sYFZGAZNC"
    "5PT5WABUmiK0Vya4y9PvVPwjwMWVojK9J0/d5dC50g06mhxCLT+DdWSElEXckcMedQDqewJSYFfF7Cpy1Ay5JTvoGMQ/"
    "/0YzUD8/2HIregk1b7iNQRfFgFoGPKjRd6K1BjKNQAxCR1SpBIfUHa9vhkXVAD69fdtQeKsgNIeBO/djXu1CKZ6/XyFE"
    "YPFmkLUMxs1qQlT5cMXBxdQ6wuVQhnoKmW6on1EJvOOlAe7ru2rcbUVaGZ+ujJk2sV8ZNRWR7c/wVTyFHxPj1F++MTj2"
    "A6WdRsZnUZl8D7IvAIcaU3uNRqxdKnMoYgAgJS01G8ja8WQPVOzVUJTUcRem1f3awhGgOg9R06FxKHcHDtVogk1H3Vd1"
    "VGvLsjJR7/UhHCtuC0V2S7XoxNSH36s4kLaBfEOmd1Ig8X9EzpMTKmMEfUjVCvX3WlhhmeDwNSVoE7W7c9vzTw+91Jp1"
    "+bxUTc9ZYOw7Un8qKEGDfMkqmSrtSgd7Nw5sNwNzWPd1KW4SsJb1c2gYzujUqhptZ8LaJp5ya+dS7jNwCac36BmBCT1L"
    "6cggHKUbHlZLVfUwB4CixevK0c5ledTJpSTn2iTyEKQx11M8fOgOy8DsbKPJ/U14gx0KFyy14KjQtTb5SRO7j8yOrJGY"
    "1N4eCQ6j/d0TbDo3U4ZtaoVVZurIw5itTrmhHvdHOMfkDzH1Pno/4EzKKwgL72nU+sBbVAUNr5m6hW9UBqrplsRBj2rZ"
    "Ba1QfYD/9q5UXTKf0HVDsvFsZzLdXOQ70NUQTaPAyDYRKzsN71Rn174JBsShxUMf/VGoBNFpkHjTZiRUtUmJgaSb8IkW"
    "CsXP1TQYS34+IbHf0YHfVN350DIs9eVvfF8dU4fz/8A+MImxR/s1T15MeOSQd86WsBfVPrmLGDFpOIUs63dVSGt1az6E"
    "e3ovFX1VRthjWxrt9V8vTnVWPTAaXHgU5Z4CIdViyBoAIfJ1EIMuC1WvyYEQtTHa4EwDvVba2kBr/vqD0mOq9V1Y5J6d"
    "jisuMhvk1XmAn7v6ZrdH6qpHVgGiF7fF/gQ36UH9WKXAlYIXc7YOK5e1ZGG/+qf/CA+oKNzVkq9Yeg3IRxbsgodWX6VI"
    "YLGyq82hg81ZuZFDA4eG7plWmbVoWPMvBWnJhdM8/tWkr7ZmXRFptJDsd1bY7kx7KhSH0dVE7VvyAaRkMEdPX5UT9XCA"
    "Gg2NGIF64cuo1cuwUdlIfpNsV5ErVzQ3uDhOc0tRpb29XW3iFSCUjsY1bsv1dlXTpdc9JWfVmCXV7Ow3GRmQKZDrB0tX"
    "ylqQNg7VKL/La21f6yEYO5YqCdmFGrWB7ODuysdkXdGOaNYQ0NXrGrrXhsimd1hUpn4iCVgYCwjdLWFqvjqFy/7SXBOE"
    "dYfuiGPrI7wnPOMR1iCXTittZM93UYa7WJlmi3/m+9wtOKJdY4FkNhJpw9S733v1kVKsTiP5Si33savWRuuTU2NIK02n"
    "OmtZKDxH0EavQ/XWW91lGyV6E6+pDSMj9PWV8CKQBynViFmGHtZeOcXVlFJB3I4T01mJwlCLmnwy3oeZfWaBGqQaKMZi"
    "M7XMdZruxQR309vlBVu81nCsJ2Vcl07nq9XPWczJxa+Uf0FlkNQNZ1UQo/gVSmtsCOO1ob/l5918IQTyDNnWjLKz6bb6"
    "Fbf2rgdaUTGhvXDS/5Y57b1pcQsMDrw+9efworWmyWoaXbwWgWTdJdadY9i4T/m//p3Lz1qI91tAIKUhUHjcPWrbYFQk"
    "SsN/OLYS9az77rCfG4UURHxC1rq1mmVjUSTwSSkHWxH+XJydd3b39FD9bHMg9NZn2+pLyAF1tMopQUBNpSA+unXW1Xbk"
    "EFBHyBATrOdba+wjAMT7FRNvLQ1vFGj8KITRFNxS/rW+JWbI2lFGSuWtltb+OmfqQgAUJRFnf1wMhXlOeLWLGPcRLXCe"
    "3dOzF7JseGMWNcKS4mBDrsBSLuKi1xSiib6CMLnrC84LXJKVmVD3kCl/capNcncVnH3FTxPAtPd1y2QVZwsLrzS2rcvX"
    "LiwKEH+Hcd+A9nNcwJeekHtdAtGwdy1zVyf+wc+DHJNNh/XR/8j6WqskeX6NzNdIC4i/EZ2PUMcRv10t/yRuo6xtEs3E"
    "HXToCTOMlmf05QmWddVhjONzfCqChtDW11mbjMrgP4r1eTWjXXDzZKITfVM6Zj5ddvx20aRwvpeI5WX130gJxOA5cwaY"
    "x1LXfjr8bbmWvUFYn39eC6LvWKXtDbFpMg14TDYY9vKxqZgKfjXiCGJnkC+3+wUkFteL2JzapuqSY8Ojr158A/CdIKMO"
    "59tMXXoLgRmjbzU0Dadq9el3zTl0Mrct/8We16Zg31wPaB4SkGQ7XrB6QWOCT+57f2CtevMiF8BXcxH0kSK17LO0v6Hy"
    "R1c/tFjXtKiTP45Vja+eHG9fKcqmDtAwGBbT8e19J1HI/0bqbiBQrjX1+Gy9OWNPyW6QjtfYHowhvGBN1pz4h1+dvJNd"
    "p8xEMloubX7l7Qj7ocmOnMIm9fzLTtTT2vuZjDLV1/ax4BfkCcX3XS9TX+oDuVQdRSY29boNf/9Ghjq7wtEdB/a2AMv0"
    "51u0vfzbQinYCmcHd/mRx2UXNg9gM3Tk8dSAVbBgFa2BfDrWmF5zG2oH03YJDl8pzuq2YpyaiNgn9LMJrxF/lh7sK2DP"
    "ouLdUTGQsz4wrYPMc3nYKNdH4R+89g/IqkMF+a89Y2ay2EiChzboClhHcJNjYUMRWs1lbi/QAWLthaQGWxJ59cxNNeO2"
    "F9LxhYMbY3XrXojYYAI7h0wpU/TLw8dhpFOmpo3H16PA7v2Gyn3dAbbyxzCW4zYchrCBT7Z/xPgGBNh3RK8D2Jw4Xg77"
    "T2IKdoXdulrrB9Z+HYh8JHlzTbhWWh0AdiaUfC1HYv37hkUO2KPyaHrC6bhoXSJzYpkFt+qwm2zw7vjtivvagGfZkhNt"
    "eVY2LGlsFD2LH2Dcfe7YuITqJGQpDCILh3ti94fJeq+1Kuxqat2NHTIwxhFmWOLYzbY1LXgbaLhXuG2ypNjbxz+8SgzK"
    "wMF4z2OKAuYnc29Vb7hzfY5NVUZJd3GsR3OA9jtvLVuaqD60sO3v2PB9VYpx+UfXxakvY9aEUtX4mzz9LNl9j2PeHjx9"
    "a8Z50gz2PkTzxjqxhyHXwKzY/+LdfLo7WobK1zdkEbR060/41DKRph2QdVpWJEp3d1ocQbZDsy63/b3L+odoNtkTD0t6"
    "Ci0Li9sdl2RwXYY1xnkFK52BLZJcmkexiGZyPgqudkpLtOqqNgp/DhDS2SzNiMqCuag9XmkvZMh0sjtyEO7hRNX9lAdS"
    "xG1U0VysiWq2UluqpEJFZhHanb7ZTLv0kHSu0ieuqp9lPim1G9gbf/+TGK2VRlfonn+MnLddo/ZW1Gwvcdzdf3GT/tld"
    "5yX+8ZWR49+1s2WFz5cD8HQTawOs/Za5L73uJC59dolAdltGODVkhLmBOHkZ2XOX5F64ZZDOUKD3Zg7pbqbLRHp7iwLN"
    "mKPFKPsYhF856wD2Zdu2axfF9z8Hn2PZqLhOLiQ9G9giay9muxy94o4TL6X8CT2boyU46rVwLfZFOzZyzCw+eTtYfFeN"
    "pdnNECmzv56rY8t+r2dWBobPZAAz3WqFTZ3JU5TuLwrKQ5N7tngZXCG1ySCraPjH2eOGaw4BTAmWCh5nZ6nSczXlIaAE"
    "Ysk9nx/qHVv/elA5out2fLpA/SbOJFxfRLLZ+85FAw8V5fK2F2dn9QVSjiKINwoJSf2gSh0ZIt3YMwsajfaDSR3exJTD"
    "4nrbb9oThld2p4idGkk8Y2iCWztfOmBheXIMzaJh+krldNsEzxlVNov92atB/A9tmgD32jR0dUIbvN9vfoMXaOwHld0e"
    "31SmZakNo9rMoTRF9c1kJeU2kNGca8bQZFjSzmvaSWspk8aEl5Eaa2tpMLMAgbn/r44rA12lLUo/sILFMmZPDjaXmlMs"
    "t0Bl7XHkHdpkLL7hhlJwcq4/a2m3IajzT96SNzqYHac2+dFrz1uXLtr3dp8BWFkrYsFnMeD82obBpEuwKRf0zBBnaj/i"
    "xn6a4CIT6zxtqSkAJmJ+YOkxtBu2pjeiSZMr5m15K87amyP2Yp0mLw8KPOtqiItXls+Voj8yhu2qemLEb4XG8Wo4E3ar"
    "h46FCB7Ld4TFo9q2A03aZ5+PO9Dkr2rmL8K0hiYTwjoPzav3l+V+cpJgfQ4FtrO9tpEGT391LBZX2tBTh4BzhvNauUjD"
    "a3JGxi1oTIql/6UNrmHRL1ADFaSxLV92uq903lpXPPVssPPa7BBkGJcQMYxACdNrxXcxDdD6EeGVOE2vSHeHiYsZq0Tt"
    "qja9wHNCpC8fscB2kdsArEDw8UhX6fx2Z2wVOG0JzUzAcDCYnbDwpxbkje0ovdZ6NsScU0mISNvi6UvA2xd9Ry5gPMmO"
    "UrKvbHadleUmSlDWzhGdskxrDlk2nO/DXW+2yhpUqxEqp4GHorLbLcnDEoQyfVOpMads5wTzBqfBmbqIEz2zrX6iMiPl"
    "lPiW1/bSIHEc2/+w2PLtgdtNvjFrdrB3VgwTk206afCt1HCIUiym3bVnI30t40gixyIs9tljxPpIARSzXKi622nmV19W"
    "hyf5aY4bbaqiqWer8WDr7FrttxLIBvPAQE7VGOH23eDU1/kGrbP8dS3bgvaQKoX6Bx13uKduHqd6mob6PoAYvK24182w"
    "bzgT9SceqLbkO72zT9wZjGuxj9uWL09+CoZ7z4GHj25x+R3FNiJmRjB8HboHWO0i2A7F2j8K9ujZsXORwG3b+cw826kW"
    "AJx7SkxQAuZ3buBN5Vxgh31nvtq9u77ceoidDGNnE8228WPgr9k7ANHj9j3byj8m+HN9Y3C8O+9vMYGKmsx38ALlkx29"
    "HAHmezjSGM5DZzb4ipox5cPMPAVyCNvnDc+kYpEui7hox2+hpmr497SO+kJFDb697eeoKggxFJ/O9vuWoK7F16+wzR9p"
    "2/AGNVbSQg06bUlPb+U4/wDXIsu29ZttwBvdSrdNrBWDTcG3AJB3XArSyK37ANTcC+2pzXneoHtjItNwONwWZrTyqkDH"
    "4s3BMADZab9RBg1OKbcGfPtTO/q80iKHHdwlDAkQhARkiXA8G3CzhXMxyZsa7IawTcNAKqMhWH5lyeZitw4N3+5d0wxx"
    "NHZE3FE7m9xvbynMkMTzcWD7FPrUSVw0rwHtxd2kQBPMjCxGeKm3GS6aiWOBvhJB2xLcZ8LM+2ZZQz32NcNxwTEjVfDK"
    "lA9oix3HlPqiAmgTOfb7+jcfN4wFHQcDpRzkP9yAN1ps9Q/eM/oPf3IOG+dofCQGFnumbchcJnWepKRuwDzVdyJIJg/h"
    "By+13q+z3Ji7TTK9oOJsgP2ncp5rz0Spbol2NZNNyzSlGNMrtC4GKQ63LbYM96VJK0vfZofcwV+sRAIVZhFSOZNzCEsY"
    "2gDZZPYC473MsJO2AfNwn5OHsXc0I6AVlMmhW1XyutzT+N4PuueU6kSxY3NZvYa4pK2bZQUDPc5dMiF+RDV/mnTiNzme"
    "eMKmTK7R2HGj3Om0UNxnv3h12smLc90FlX05KM4NumENz7PF8NPaAiioqI53P4g/wiAXc8+8qUfdA/Jhw69wnwNAKx90"
    "UaAOZJkN8TG2yp3RdTsMkNvlNcpRCvdHiQEQubJqmSpr590olFQRQHK7S281g3S6tONvydHm9E75rdMHrRdATiHtLioK"
    "90zC/uJDUUjdi3Nw3TlyNTRdlggxyA3bdOr64tQpbORGy4Jt1EMEOmS62zlp3z83VydqjMSQolhvivDdX+SJFY4AuwyM"
    "oSt1mCGwD3M4YzQE7q3WnSb1w/DHhlqhGDdaphYONWvGp1COKN1vZ8WZoA48uc40O3XIghMQ4y6r5c743ddKp99jlYDV"
    "QuNud19jKj/KNjokjfFI3YiUjtg4EPAasqv/dlUB0z+TYpQ3S8092W0KhU8yxHvdr8G3ZrtA3tEA1S+gGyHdnyeMJ+4F"
    "AVVnwVd2p9ospEV8SoxU4D3axfxHRJu7guqu5DdsT4AsiG6I0JHO392ym8ZYfDJHNOQK93bc8iTpjRj+NOOVbduIYuSG"
    "NXavdunWN27dEfmjG2xJGn2/3cUfrBNqdzCOdF+bdzI15IsZCsyPuKKt3SVWCQ6D/qkLW8/3dS72JF4KX6nRUNDd2wP8"
    "s5iTv8TtIdN3dx8ItankMqRV9h3ehzrDIccsUN4xFjd83Vz5x6uI6FJYIt358abdMLJOQwRkS3f8/dCzU6dEDeCP7eBo"
    "3uyAgZa3diM2t4JxC9pW0joHLWhW3goxcti89FWPskvveDzexkllbEyX4okt4RZsCRm9wNFdC0I3hJGy/WLumO2xRRXe"
    "HQAFH/CnKdMEak94nWt20618qJFDJM3i4wz5AbY1LokG+neNt3SvZl4JP4bUt95Bu0tNK49xBeulk3kc3+gXBqv2/bsi"
    "neTq8DQNLoIbFlbct5Tt47FOd56H7Ihp3lWHoNB1usq+o9qDeXNrwCFAFlX4z+Fd5j/BlrihXIvHOJO3nSmO94zk3ttE"
    "gGDefQiied2maCUsnat5+mSQHgdJ2+JjEZ3oHYVGLwe6BUV6njei+PhvhEeR91w86d6NwkMrs3ZjtrYmu3pCeegzXake"
    "vn3C3elkBSs0vNwKcZ4wd6ZbY2KxkRYoTZu43pplkYQEReXuFt0beoHEEtDOS1pW2Ikd6mAmMTiYaLtXMB73rJa/DRfr"
    "KhCu7K7etDnobskgMJFI9p96+ueUb2ODCcqBu03sC1GCgGVYVC+dXfeysDxlz+Q/7kT/St7YYg/MW+66b/iXN3tsptlq"
    "0XG6Eq8lDe4aith+eFMoRFfXd7owAFg3Lf1mEwSZ3u3jXBTvfK0MjsZ3e8ycx+3XwC0ys07N71TLOU12czP4JeF3vzjo"
    "6LY6wCCMW73fAsWVTWbs7u7xdI98EKFl7lmjlpnSyM3wdzwkV0hv0ohbL/fDSbBOZ0mi2nsThN8VQGY6pUpzljGrl3x/"
    "CvV7H2axD9QHLfIBb3U8tdiTo32lt8pu5NipEdXUVmfD3zL6fvJiFaAK32S/fNDTP+0WdZofH2nt9FDlWND5gdB3ODv3"
    "1E7s3/RuB+jaC5/fXjb/52V02rzAUp99iaK0jACJiyv6aM32sFhw1tTS3ZVSiTfbmLD2FJiN3EboVt9wfBc/3blplTIx"
    "333z3mr/xeleufdzTfhupmi50F0SIpBLd+MkWBuBnadHqs5F3481HUiPh7FJiK5ffkovydVGXtlW1n/d+bUqumd6Wspl"
    "dI53542RUO3sqU4BbNLfoZRyCyTwKPwlZ2d+iiXVRMcoX1oHcV36TGPYUs9ZEaSysDfqOUywqATiIgmged+rRXosHMr5"
    "xg90j37DzMFVY9eqaJwWTfwTDiuBt5FlrQHoN/Eg7iJt/ozNxKwR38j+D9KbMohzdun7f1Ua8iwI6uM9siDN/aHY/yiD"
    "pRoZVNC3/FkU74N1UqSl0wrf+4dCDWwzUyOaGQ9/+XkAelOlpkq1MXA="
)


@functools.lru_cache(maxsize=1)
def polynomials():
    """[(poly, m)] for dimensions 2..MAXDIM: the primitive polynomial as an int (bit i the
    coefficient of x**i) and the initial direction integers m_1..m_s, unpacked."""
    raw = base64.b64decode("".join(_PACKED))
    bits = format(int.from_bytes(raw, "big"), f"0{8 * len(raw)}b")
    pos = 0

    def read(width):
        nonlocal pos
        pos += width
        return int(bits[pos - width:pos], 2) if width else 0

    rows = []
    for _ in range(1, MAXDIM):
        s = read(4)
        poly = (1 << s) | (read(s - 1) << 1) | 1
        rows.append((poly, [1] + [(read(i - 1) << 1) | 1 for i in range(2, s + 1)]))
    return tuple(rows)


_rows = [[1] * MAXBIT]  # the integers m_1..m_MAXBIT of the dimensions computed so far
_rows_lock = threading.Lock()


def direction_numbers(dimension=MAXDIM):
    """The (dimension, MAXBIT) int64 table V of the first dimensions: V[d, j] =
    m_(d, j+1) * 2**(MAXBIT-1-j), the direction numbers as MAXBIT-bit binary fractions,
    the m beyond s from the recurrence of Bratley and Fox (ACM TOMS 14 (1988) 88-100,
    section 2), as PyTorch builds its sobolstate.  Rows are computed when first asked
    for, then kept."""
    with _rows_lock:
        for poly, initial in polynomials()[len(_rows) - 1:dimension - 1]:
            s, m = poly.bit_length() - 1, list(initial)
            for j in range(s, MAXBIT):
                new = m[j - s]
                for k in range(s):
                    if (poly >> (s - 1 - k)) & 1:
                        new ^= m[j - k - 1] << (k + 1)
                m.append(new)
            _rows.append(m)
        rows = _rows[:dimension]
    return np.array(rows, dtype=np.int64) << np.arange(MAXBIT - 1, -1, -1, dtype=np.int64)
