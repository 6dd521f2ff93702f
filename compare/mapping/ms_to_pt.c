/* MindSpore API names and the PyTorch APIs they correspond to, for -am
 * (spec/compare.md §4.1): the mapping msprobe ships. Only entries that change
 * a name are listed; every other MindSpore API keeps its name. */
#include "compare/mapping/mapping.h"

#include <stddef.h>

/* mindspore.ops functions that are torch functions of the same name:
 * Functional.<api> -> Torch.<api> */
const char *const ms_functional_as_torch[] = {
    "abs", "absolute", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "angle",
    "arange", "arccos", "arccosh", "arcsinh", "arctan", "arctanh", "argmax", "asin", "asinh", "atan", "atan2",
    "atanh", "baddbmm", "bartlett_window", "bincount", "bitwise_and", "bitwise_or", "bitwise_xor",
    "blackman_window", "ceil", "cholesky_solve", "clamp", "clip", "column_stack", "conj", "cosh", "cross",
    "cumprod", "diag_embed", "diagflat", "diagonal", "digamma", "dist", "div", "divide", "einsum", "erf",
    "erfc", "exp", "exp2", "expm1", "eye", "flip", "fliplr", "flipud", "floor_divide", "fmax", "fmod", "full",
    "full_like", "gcd", "geqrf", "greater", "greater_equal", "hamming_window", "hann_window", "heaviside",
    "histc", "hsplit", "hstack", "hypot", "i0", "igamma", "igammac", "imag", "inner", "inverse", "is_nonzero",
    "is_tensor", "isinf", "isneginf", "isposinf", "isreal", "kaiser_window", "kron", "lcm", "lerp", "log1p",
    "logaddexp", "logaddexp2", "logdet", "logical_and", "logical_not", "logical_or", "logical_xor", "logit",
    "logspace", "lt", "lu_solve", "lu_unpack", "masked_select", "matmul", "mm", "moveaxis", "movedim",
    "msort", "mul", "multiply", "nan_to_num", "nansum", "neg", "negative", "nextafter", "nonzero",
    "not_equal", "numel", "ones_like", "orgqr", "outer", "permute", "polar", "pow", "rand", "rand_like",
    "randn", "randn_like", "ravel", "real", "reciprocal", "remainder", "reshape", "roll", "rot90", "round",
    "row_stack", "rsqrt", "searchsorted", "sgn", "sign", "signbit", "sin", "sinc", "sinh", "slogdet",
    "square", "subtract", "sum", "swapdims", "t", "tan", "topk", "trace", "trapz", "tril", "tril_indices",
    "triu_indices", "true_divide", "trunc", "unbind", "unsqueeze", "vander", "view_as_real", "vsplit",
    "where", "xlogy", "zeros_like",
    NULL,
};

/* APIs whose PyTorch counterpart has another name. */
const char *const ms_api_renames[][2] = {
    {"Functional.bidense", "Functional.bilinear"},
    {"Functional.dense", "Functional.linear"},
    {"Functional.equal", "Torch.eq"},
    {"Functional.swapaxes", "Torch.transpose"},
    {"Tensor.asnumpy", "Tensor.numpy"},
    {"Tensor.cauchy", "Tensor.cauchy_"},
    {"Tensor.equal", "Tensor.eq"},
    {"Tensor.fill_diagonal", "Tensor.fill_diagonal_"},
    {"Tensor.gather_elements", "Tensor.gather"},
    {"Tensor.swapaxes", "Tensor.transpose"},
    {NULL, NULL},
};
