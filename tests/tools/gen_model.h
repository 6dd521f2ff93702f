/* The model gen_dump walks: a Megatron-core GPT (rotary embeddings,
 * column/row-parallel linears, bias-dropout-add, tanh GELU, Adam), its call
 * sites, and the Python stacks msprobe records for them in stack.json.
 *
 * Only gen_dump.c includes this file; it is kept apart for size (every .c
 * file in tests/tools/ is built as its own program). Each site is one
 * distinct stack, so it is one group of stack.json; the module contexts
 * give the frames between a call site and the training loop.
 */
#ifndef GEN_MODEL_H
#define GEN_MODEL_H

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/strbuf.h"

/* ------------------------------------------------------------------ types */

enum { GT_F32, GT_BF16, GT_I64, GT_BOOL };
enum { KIND_ACT, KIND_W, KIND_GRAD, KIND_POS, KIND_GELU, KIND_ONE, KIND_ZERO, KIND_IDS,
       KIND_SCALAR, KIND_RANGE, KIND_ONES };

typedef struct gtensor {
    unsigned char dt, nd, rg, bad, empty, perm, kind, masked;
    int sh[4];
    uint64_t seed;           /* of its gradient's statistics */
    double v[2][4];          /* [bench, target][Max, Min, Mean, Norm] */
    double r, drift, hot;    /* --mode tensor: scale, relative drift, hot-spot factor */
    struct gtensor *grad;    /* made on first use, so every use agrees */
    void *data;              /* --mode tensor: this side's elements, as written */
} gtensor;

enum { K_TENSOR, K_NULL, K_EMPTY, K_LIST, K_INT, K_FLOAT, K_BOOL, K_STR, K_DTYPE, K_DEVICE,
       K_MEMFMT, K_REDOP, K_ELLIPSIS, K_SIZE, K_SLICE, K_PG };
#define NONE INT_MIN          /* a None inside a slice */

/* One argument, output or keyword value as msprobe records it. */
typedef struct item {
    unsigned char k, n;
    const char *key;
    union {
        gtensor *t;
        long long i;
        double f;
        const char *s;
        const struct item *l;
        int sz[4];
    } u;
} item;

typedef struct {
    int fd;
    char *path;
    char *buf;
    size_t len;
    unsigned long long total;
    int depth;
    unsigned char first[64];
} jw;

typedef struct {
    const char *out;
    long entries;
    int layers, ranks, steps, md5, extra;
    int tensor, npy, tscale;           /* --mode tensor, --format npy, --tensor-scale */
    unsigned long long seed;
    double drift, nan_rate, hot_rate;
} opts;

typedef struct mod {
    char path[96];
    const char *cls;
    int ctx, np;
    unsigned calls;
    gtensor *p[2];            /* weight, bias */
} mod;

enum { R_API, R_BEGIN, R_END, R_AR };
typedef struct rec {
    unsigned char kind, grad;
    unsigned short api;
    unsigned cnt;            /* API call count, or module call */
    mod *m;
    int nin, nout;
    gtensor **in, **out;
} rec;

/* ------------------------------------------------------ stack contexts */

#define PYLIB "/usr/local/lib/python3.10/dist-packages"
#define TORCH PYLIB "/torch"
#define MEG "/workspace/Megatron-LM/megatron"
#define FR(file, line, fn, code) "File " file ", line " #line ", in " fn ", \n " code

#define FRAME_API_HOOK FR(PYLIB "/msprobe/core/data_dump/api_registry.py", 115, "api_function", \
    "return api_template(api_name, api_func, prefix, hook_build_func)(*args, **kwargs)")
#define FRAME_MOD_HOOK FR(TORCH "/nn/modules/module.py", 1595, "_call_impl", \
    "hook_result = hook(self, args, result)")
#define FRAME_MOD1 FR(TORCH "/nn/modules/module.py", 1541, "_call_impl", \
    "return forward_call(*args, **kwargs)")
#define FRAME_MOD2 FR(TORCH "/nn/modules/module.py", 1532, "_wrapped_call_impl", \
    "return self._call_impl(*args, **kwargs)")

#define TRAINING MEG "/training/training.py"
#define SCHED MEG "/core/pipeline_parallel/schedules.py"
#define GPT MEG "/core/models/gpt/gpt_model.py"
#define LME MEG "/core/models/common/embeddings/language_model_embedding.py"
#define ROPE MEG "/core/models/common/embeddings/rotary_pos_embedding.py"
#define LAYER MEG "/core/transformer/transformer_layer.py"
#define ATTN MEG "/core/transformer/attention.py"
#define DPA MEG "/core/transformer/dot_product_attention.py"
#define SOFTMAX MEG "/core/fusions/fused_softmax.py"
#define BDA MEG "/core/fusions/fused_bias_dropout.py"
#define MAPPINGS MEG "/core/tensor_parallel/mappings.py"
#define TPLAYERS MEG "/core/tensor_parallel/layers.py"
#define MOPT MEG "/core/optimizer/optimizer.py"

#define AR_CHAIN(caller) { FR(MAPPINGS, 214, "forward", "return _reduce(input_)"), \
    FR(TORCH "/autograd/function.py", 598, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"), \
    FR(MAPPINGS, 431, "reduce_from_tensor_model_parallel_region", \
       "return _ReduceFromModelParallelRegion.apply(input_)"), \
    caller }

typedef struct {
    int parent, module;
    const char *f[4];        /* innermost first; a module adds the two torch frames first */
} ctxdef;

enum { C_MAIN, C_FB, C_SCHED, C_FWDSTEP, C_GPT, C_LOSS, C_EMB, C_WEMB, C_WEMB_AR, C_EDROP, C_ROT,
       C_DEC, C_LAYER, C_LN1, C_ATTN, C_GETQKV, C_QKV, C_ROPEQ, C_ROTQ, C_ROPEK, C_ROTK, C_CORE,
       C_SMAX, C_SMAXT, C_SMNN, C_ADROP, C_PROJ, C_PROJ_AR, C_BDA1, C_LN2, C_MLP, C_FC1, C_GELU,
       C_FC2, C_FC2_AR, C_BDA2, C_LNF, C_OUT, C_LMLOSS, C_BWD, C_MKGRAD, C_ARBWD, C_OPTSTEP, C_CLIP,
       C_OPT, NCTX };

static const ctxdef CTXS[NCTX] = {
    [C_MAIN] = {-1, 0, {FR(TRAINING, 1050, "train", "train_step(forward_step_func,"),
                        FR(TRAINING, 279, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                        FR("/workspace/Megatron-LM/pretrain_gpt.py", 247, "<module>", "pretrain(")}},
    [C_FB] = {C_MAIN, 0, {FR(TRAINING, 567, "train_step", "losses_reduced = forward_backward_func(")}},
    [C_SCHED] = {C_FB, 0, {FR(SCHED, 343, "forward_backward_no_pipelining", "output_tensor = forward_step(")}},
    [C_FWDSTEP] = {C_SCHED, 0, {FR(SCHED, 193, "forward_step",
                                   "output_tensor, loss_func = forward_step_func(data_iterator, model)")}},
    [C_GPT] = {C_FWDSTEP, 1, {FR("/workspace/Megatron-LM/pretrain_gpt.py", 184, "forward_step",
                                 "output_tensor = model(tokens, position_ids, attention_mask,")}},
    [C_LOSS] = {C_SCHED, 0, {FR(SCHED, 206, "forward_step", "output_tensor = loss_func(output_tensor)")}},
    [C_EMB] = {C_GPT, 1, {FR(GPT, 170, "forward",
                             "decoder_input = self.embedding(input_ids=input_ids, position_ids=position_ids)")}},
    [C_WEMB] = {C_EMB, 1, {FR(LME, 101, "forward", "word_embeddings = self.word_embeddings(input_ids)")}},
    [C_WEMB_AR] = {C_WEMB, 0, AR_CHAIN(FR(TPLAYERS, 255, "forward",
                                          "output = reduce_from_tensor_model_parallel_region(output_parallel)"))},
    [C_EDROP] = {C_EMB, 1, {FR(LME, 127, "forward", "embeddings = self.embedding_dropout(embeddings)")}},
    [C_ROT] = {C_GPT, 1, {FR(GPT, 181, "forward", "rotary_pos_emb = self.rotary_pos_emb(rotary_seq_len)")}},
    [C_DEC] = {C_GPT, 1, {FR(GPT, 186, "forward", "hidden_states = self.decoder(")}},
    [C_LAYER] = {C_DEC, 1, {FR(MEG "/core/transformer/transformer_block.py", 415, "forward",
                               "hidden_states, context = layer(")}},
    [C_LN1] = {C_LAYER, 1, {FR(LAYER, 169, "forward",
                               "input_layernorm_output = self.input_layernorm(hidden_states)")}},
    [C_ATTN] = {C_LAYER, 1, {FR(LAYER, 173, "forward", "attention_output_with_bias = self.self_attention(")}},
    [C_GETQKV] = {C_ATTN, 0, {FR(ATTN, 262, "forward",
                                "query, key, value = self.get_query_key_value_tensors("
                                "hidden_states, key_value_states)")}},
    [C_QKV] = {C_GETQKV, 1, {FR(ATTN, 394, "get_query_key_value_tensors",
                                "mixed_qkv, _ = self.linear_qkv(hidden_states)")}},
    [C_ROPEQ] = {C_ATTN, 0, {FR(ROPE, 215, "apply_rotary_pos_emb",
                               "return apply_rotary_pos_emb_bshd(t, freqs, "
                               "rotary_interleaved=config.rotary_interleaved)"),
                            FR(ATTN, 290, "forward",
                               "query = apply_rotary_pos_emb(query, q_pos_emb, config=self.config)")}},
    [C_ROTQ] = {C_ROPEQ, 0, {FR(ROPE, 170, "apply_rotary_pos_emb_bshd",
                               "t = (t * cos_) + (_rotate_half(t, rotary_interleaved) * sin_)")}},
    [C_ROPEK] = {C_ATTN, 0, {FR(ROPE, 215, "apply_rotary_pos_emb",
                               "return apply_rotary_pos_emb_bshd(t, freqs, "
                               "rotary_interleaved=config.rotary_interleaved)"),
                            FR(ATTN, 291, "forward",
                               "key = apply_rotary_pos_emb(key, k_pos_emb, config=self.config)")}},
    [C_ROTK] = {C_ROPEK, 0, {FR(ROPE, 170, "apply_rotary_pos_emb_bshd",
                               "t = (t * cos_) + (_rotate_half(t, rotary_interleaved) * sin_)")}},
    [C_CORE] = {C_ATTN, 1, {FR(ATTN, 315, "forward", "core_attn_out = self.core_attention(")}},
    [C_SMAX] = {C_CORE, 1, {FR(DPA, 178, "forward",
                               "attention_probs: Tensor = self.scale_mask_softmax(attention_scores, attention_mask)")}},
    [C_SMAXT] = {C_SMAX, 0, {FR(SOFTMAX, 177, "forward", "return self.forward_torch_softmax(input, mask)")}},
    [C_SMNN] = {C_SMAXT, 1, {FR(SOFTMAX, 213, "forward_torch_softmax",
                               "probs = torch.nn.Softmax(dim=-1)(mask_output)")}},
    [C_ADROP] = {C_CORE, 1, {FR(DPA, 186, "forward", "attention_probs = self.attention_dropout(attention_probs)")}},
    [C_PROJ] = {C_ATTN, 1, {FR(ATTN, 336, "forward", "output, bias = self.linear_proj(core_attn_out)")}},
    [C_PROJ_AR] = {C_PROJ, 0, AR_CHAIN(FR(TPLAYERS, 982, "forward",
                                          "output_ = reduce_from_tensor_model_parallel_region(output_parallel)"))},
    [C_BDA1] = {C_LAYER, 0, {FR(LAYER, 185, "forward",
                               "hidden_states = self.self_attn_bda(self.training, self.config.bias_dropout_fusion)(")}},
    [C_LN2] = {C_LAYER, 1, {FR(LAYER, 205, "forward",
                               "pre_mlp_layernorm_output = self.pre_mlp_layernorm(hidden_states)")}},
    [C_MLP] = {C_LAYER, 1, {FR(LAYER, 208, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)")}},
    [C_FC1] = {C_MLP, 1, {FR(MEG "/core/transformer/mlp.py", 89, "forward",
                             "intermediate_parallel, bias_parallel = self.linear_fc1(hidden_states)")}},
    [C_GELU] = {C_MLP, 0, {FR(MEG "/core/transformer/mlp.py", 96, "forward",
                              "intermediate_parallel = self.activation_func(intermediate_parallel)")}},
    [C_FC2] = {C_MLP, 1, {FR(MEG "/core/transformer/mlp.py", 106, "forward",
                             "output, output_bias = self.linear_fc2(intermediate_parallel)")}},
    [C_FC2_AR] = {C_FC2, 0, AR_CHAIN(FR(TPLAYERS, 982, "forward",
                                        "output_ = reduce_from_tensor_model_parallel_region(output_parallel)"))},
    [C_BDA2] = {C_LAYER, 0, {FR(LAYER, 216, "forward",
                               "hidden_states = self.mlp_bda(self.training, self.config.bias_dropout_fusion)(")}},
    [C_LNF] = {C_DEC, 1, {FR(MEG "/core/transformer/transformer_block.py", 431, "forward",
                             "hidden_states = self.final_layernorm(hidden_states)")}},
    [C_OUT] = {C_GPT, 1, {FR(GPT, 224, "forward",
                             "logits, _ = self.output_layer(hidden_states, weight=output_weight)")}},
    [C_LMLOSS] = {C_GPT, 0, {FR(GPT, 235, "forward", "loss = self.compute_language_model_loss(labels, logits)")}},
    [C_BWD] = {C_FB, 0, {FR(SCHED, 260, "backward_step",
                           "torch.autograd.backward(output_tensor[0], grad_tensors=output_tensor_grad[0])"),
                        FR(SCHED, 352, "forward_backward_no_pipelining",
                           "backward_step(input_tensor, output_tensor, output_tensor_grad, model_type, config)")}},
    [C_MKGRAD] = {C_BWD, 0, {FR(TORCH "/autograd/__init__.py", 280, "backward",
                               "grad_tensors_ = _make_grads(tensors, grad_tensors_, is_grads_batched=False)")}},
    [C_ARBWD] = {C_BWD, 0, {FR(MAPPINGS, 220, "backward", "return _reduce(grad_output)"),
                           FR(TORCH "/autograd/function.py", 306, "apply", "return user_fn(self, *args)"),
                           FR(TORCH "/autograd/graph.py", 768, "_engine_run_backward",
                              "return Variable._execution_engine.run_backward(  "
                              "# Calls into the C++ engine to run the backward pass"),
                           FR(TORCH "/autograd/__init__.py", 289, "backward", "_engine_run_backward(")}},
    [C_OPTSTEP] = {C_MAIN, 0, {FR(MOPT, 520, "step", "success = self.step_with_ready_grads()"),
                              FR(TRAINING, 603, "train_step",
                                 "update_successful, grad_norm, num_zeros_in_grad = optimizer.step()")}},
    [C_CLIP] = {C_OPTSTEP, 0, {FR(MOPT, 158, "clip_grad_norm", "grad_norm = get_grad_norm_fp32("),
                              FR(MOPT, 477, "step_with_ready_grads",
                                 "grad_norm = self.clip_grad_norm(self.config.clip_grad)")}},
    [C_OPT] = {C_OPTSTEP, 0, {FR(TORCH "/optim/adam.py", 335, "adam", "func(params,"),
                             FR(TORCH "/optim/adam.py", 225, "step", "adam("),
                             FR(TORCH "/optim/optimizer.py", 391, "wrapper", "out = func(*args, **kwargs)"),
                             FR(MOPT, 483, "step_with_ready_grads", "self.optimizer.step()")}},
};

/* ----------------------------------------------------------- call sites */

typedef struct {
    int ctx;
    const char *frame;
} sitedef;

#define AR_FRAME FR(MAPPINGS, 29, "_reduce", \
    "torch.distributed.all_reduce(input_, group=get_tensor_model_parallel_group())")
#define LN_FRAME FR(TORCH "/nn/modules/normalization.py", 201, "forward", "return F.layer_norm(")
#define COL_FRAME FR(TPLAYERS, 848, "forward", "output_parallel = F.linear(input_parallel, weight, bias)")
#define ROW_FRAME FR(TPLAYERS, 971, "forward", "output_parallel = F.linear(input_parallel, self.weight)")
#define DROP_FRAME FR(TORCH "/nn/modules/dropout.py", 59, "forward", \
    "return F.dropout(input, self.p, self.training, self.inplace)")
#define ROPE_SITES(C, R) \
    {C, FR(ROPE, 165, "apply_rotary_pos_emb_bshd", "t, t_pass = t[..., :rot_dim], t[..., rot_dim:]")}, \
    {C, FR(ROPE, 168, "apply_rotary_pos_emb_bshd", "cos_ = torch.cos(freqs).to(t.dtype)")}, \
    {C, FR(ROPE, 169, "apply_rotary_pos_emb_bshd", "sin_ = torch.sin(freqs).to(t.dtype)")}, \
    {C, FR(ROPE, 170, "apply_rotary_pos_emb_bshd", "t = (t * cos_) + (_rotate_half(t, rotary_interleaved) * sin_)")}, \
    {C, FR(ROPE, 171, "apply_rotary_pos_emb_bshd", "return torch.cat((t, t_pass), dim=-1)")}, \
    {R, FR(ROPE, 49, "_rotate_half", "x1, x2 = torch.chunk(x, 2, dim=-1)")}, \
    {R, FR(ROPE, 50, "_rotate_half", "return torch.cat((-x2, x1), dim=-1)")}
#define BDA_SITES(C) \
    {C, FR(BDA, 38, "_bias_dropout_add_func", "x = x + bias")}, \
    {C, FR(BDA, 47, "_bias_dropout_add_func", "out = torch.nn.functional.dropout(x, p=prob, training=training)")}, \
    {C, FR(BDA, 48, "_bias_dropout_add_func", "out = residual + out")}

enum { S_ROT_ARANGE, S_ROT_OUTER, S_ROT_CAT, S_ROT_GETITEM, S_EMB, S_AR_WEMB, S_EMB_T, S_EDROP,
       S_LN1, S_QKV, S_QKV_VIEW, S_QKV_SPLIT,
       S_RQ_SLICE, S_RQ_COS, S_RQ_SIN, S_RQ_T, S_RQ_CAT, S_RQ_CHUNK, S_RQ_NEGCAT,
       S_RK_SLICE, S_RK_COS, S_RK_SIN, S_RK_T, S_RK_CAT, S_RK_CHUNK, S_RK_NEGCAT,
       S_CORE_RS, S_CORE_VK, S_CORE_BMM1, S_CORE_VIEW1, S_SM_FLOAT, S_SM_MASK, S_SM_SOFTMAX, S_SM_HALF,
       S_ADROP, S_CORE_VIEW2, S_CORE_VIEW3, S_CORE_BMM2, S_CORE_VIEW4, S_CORE_PERM, S_CORE_VIEW5,
       S_PROJ, S_AR_PROJ, S_B1_ADD, S_B1_DROP, S_B1_RES, S_LN2, S_FC1, S_MLP_ADD, S_GELU, S_HGELU,
       S_FC2, S_AR_FC2, S_B2_ADD, S_B2_DROP, S_B2_RES, S_LNF, S_OUT, S_LM_T, S_LM_CE, S_LM_VIEW,
       S_LOSS_FLOAT, S_LOSS_SUM, S_LOSS_TOK, S_LOSS_DIV, S_ONES, S_AR_BWD, S_CLIP_POW, S_AR_NORM,
       S_ADAM_EA, S_ADAM_EASQ, S_ADAM_DENOM, S_ADAM_UPD, NSITE };

enum { NSLOT = NSITE + NCTX };

static const sitedef SITES[] = {
    {C_ROT, FR(ROPE, 140, "forward",
               "seq = torch.arange(max_seq_len, device=self.inv_freq.device, dtype=self.inv_freq.dtype)")},
    {C_ROT, FR(ROPE, 146, "forward", "freqs = torch.outer(seq, self.inv_freq)")},
    {C_ROT, FR(ROPE, 151, "forward", "emb = torch.cat((freqs, freqs), dim=-1)")},
    {C_ROT, FR(ROPE, 153, "forward", "emb = emb[:, None, None, :]")},
    {C_WEMB, FR(TPLAYERS, 250, "forward", "output_parallel = F.embedding(masked_input, self.weight)")},
    {C_WEMB_AR, AR_FRAME},
    {C_EMB, FR(LME, 115, "forward", "embeddings = embeddings.transpose(0, 1).contiguous()")},
    {C_EDROP, DROP_FRAME},
    {C_LN1, LN_FRAME},
    {C_QKV, COL_FRAME},
    {C_GETQKV, FR(ATTN, 402, "get_query_key_value_tensors", "mixed_qkv = mixed_qkv.view(new_tensor_shape)")},
    {C_GETQKV, FR(ATTN, 411, "get_query_key_value_tensors",
                  "(query, key, value) = torch.split(mixed_qkv, split_arg_list, dim=3)")},
    ROPE_SITES(C_ROPEQ, C_ROTQ),
    ROPE_SITES(C_ROPEK, C_ROTK),
    {C_CORE, FR(DPA, 129, "forward", "query = query.reshape(output_size[2], output_size[0] * output_size[1], -1)")},
    {C_CORE, FR(DPA, 131, "forward", "key = key.view(output_size[3], output_size[0] * output_size[1], -1)")},
    {C_CORE, FR(DPA, 140, "forward", "matmul_result = torch.baddbmm(")},
    {C_CORE, FR(DPA, 149, "forward", "attention_scores = matmul_result.view(*output_size)")},
    {C_SMAXT, FR(SOFTMAX, 205, "forward_torch_softmax", "input = input.float()")},
    {C_SMAXT, FR(SOFTMAX, 212, "forward_torch_softmax",
                 "mask_output = self.mask_func(input, mask) if mask is not None else input")},
    {C_SMNN, FR(TORCH "/nn/modules/activation.py", 1514, "forward",
                "return F.softmax(input, self.dim, _stacklevel=5)")},
    {C_SMAXT, FR(SOFTMAX, 218, "forward_torch_softmax",
                 "probs = probs.half() if self.input_in_fp16 else probs.bfloat16()")},
    {C_ADROP, DROP_FRAME},
    {C_CORE, FR(DPA, 196, "forward", "value = value.view(value.size(0), output_size[0] * output_size[1], -1)")},
    {C_CORE, FR(DPA, 199, "forward",
                "attention_probs = attention_probs.view(output_size[0] * output_size[1], output_size[2], -1)")},
    {C_CORE, FR(DPA, 202, "forward", "context = torch.bmm(attention_probs, value.transpose(0, 1))")},
    {C_CORE, FR(DPA, 205, "forward", "context = context.view(*output_size)")},
    {C_CORE, FR(DPA, 208, "forward", "context = context.permute(2, 0, 1, 3).contiguous()")},
    {C_CORE, FR(DPA, 212, "forward", "context = context.view(*new_context_shape)")},
    {C_PROJ, ROW_FRAME},
    {C_PROJ_AR, AR_FRAME},
    BDA_SITES(C_BDA1),
    {C_LN2, LN_FRAME},
    {C_FC1, COL_FRAME},
    {C_MLP, FR(MEG "/core/transformer/mlp.py", 95, "forward",
               "intermediate_parallel = intermediate_parallel + bias_parallel")},
    {C_MLP, FR(MEG "/core/transformer/mlp.py", 96, "forward",
               "intermediate_parallel = self.activation_func(intermediate_parallel)")},
    {C_GELU, FR(MEG "/core/activations.py", 22, "gelu_tanh",
                "return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3))))")},
    {C_FC2, ROW_FRAME},
    {C_FC2_AR, AR_FRAME},
    BDA_SITES(C_BDA2),
    {C_LNF, LN_FRAME},
    {C_OUT, COL_FRAME},
    {C_LMLOSS, FR(MEG "/core/models/common/language_module/language_module.py", 44,
                  "compute_language_model_loss", "logits = logits.transpose(0, 1).contiguous()")},
    {C_LMLOSS, FR(MEG "/core/models/common/language_module/language_module.py", 47,
                  "compute_language_model_loss",
                  "loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), labels.view(-1), "
                  "reduction='none')")},
    {C_LMLOSS, FR(MEG "/core/models/common/language_module/language_module.py", 50,
                  "compute_language_model_loss", "loss = loss.view(labels.shape)")},
    {C_LOSS, FR("/workspace/Megatron-LM/pretrain_gpt.py", 117, "loss_func", "losses = output_tensor.float()")},
    {C_LOSS, FR("/workspace/Megatron-LM/pretrain_gpt.py", 119, "loss_func",
                "loss = torch.sum(losses.view(-1) * loss_mask)")},
    {C_LOSS, FR("/workspace/Megatron-LM/pretrain_gpt.py", 120, "loss_func", "num_tokens = labels.ne(-100).sum()")},
    {C_LOSS, FR("/workspace/Megatron-LM/pretrain_gpt.py", 121, "loss_func", "loss = loss / num_tokens")},
    {C_MKGRAD, FR(TORCH "/autograd/__init__.py", 88, "_make_grads",
                  "new_grads.append(torch.ones_like(out, memory_format=torch.preserve_format))")},
    {C_ARBWD, AR_FRAME},
    {C_CLIP, FR(MEG "/core/optimizer/clip_grads.py", 111, "get_grad_norm_fp32", "total_norm = grad_norm**norm_type")},
    {C_CLIP, FR(MEG "/core/optimizer/clip_grads.py", 115, "get_grad_norm_fp32", "torch.distributed.all_reduce(")},
    {C_OPT, FR(TORCH "/optim/adam.py", 394, "_single_tensor_adam", "exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)")},
    {C_OPT, FR(TORCH "/optim/adam.py", 395, "_single_tensor_adam",
               "exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)")},
    {C_OPT, FR(TORCH "/optim/adam.py", 421, "_single_tensor_adam",
               "denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)")},
    {C_OPT, FR(TORCH "/optim/adam.py", 423, "_single_tensor_adam", "param.addcdiv_(exp_avg, denom, value=-step_size)")},
};
_Static_assert(sizeof SITES / sizeof SITES[0] == NSITE, "one SITES row per S_ constant");

/* ------------------------------------------------------------------ APIs */

#define API_LIST(X) \
    X(F_EMBEDDING, "Functional.embedding") X(F_LAYER_NORM, "Functional.layer_norm") \
    X(F_LINEAR, "Functional.linear") X(F_DROPOUT, "Functional.dropout") X(F_SOFTMAX, "Functional.softmax") \
    X(F_GELU, "Functional.gelu") X(F_CROSS_ENTROPY, "Functional.cross_entropy") \
    X(T_TRANSPOSE, "Tensor.transpose") X(T_CONTIGUOUS, "Tensor.contiguous") X(T_VIEW, "Tensor.view") \
    X(T_RESHAPE, "Tensor.reshape") X(T_PERMUTE, "Tensor.permute") X(T_GETITEM, "Tensor.__getitem__") \
    X(T_TO, "Tensor.to") X(T_MUL, "Tensor.__mul__") X(T_ADD, "Tensor.__add__") X(T_RADD, "Tensor.__radd__") \
    X(T_NEG, "Tensor.__neg__") X(T_FLOAT, "Tensor.float") X(T_BFLOAT16, "Tensor.bfloat16") \
    X(T_MASKED_FILL_, "Tensor.masked_fill_") X(T_NE, "Tensor.ne") X(T_SUM, "Tensor.sum") \
    X(T_TRUEDIV, "Tensor.__truediv__") X(T_MUL_, "Tensor.mul_") X(T_ADD_, "Tensor.add_") \
    X(T_ADDCMUL_, "Tensor.addcmul_") X(T_SQRT, "Tensor.sqrt") X(T_ADDCDIV_, "Tensor.addcdiv_") \
    X(T_POW, "Tensor.__pow__") \
    X(TO_ARANGE, "Torch.arange") X(TO_OUTER, "Torch.outer") X(TO_CAT, "Torch.cat") X(TO_SPLIT, "Torch.split") \
    X(TO_CHUNK, "Torch.chunk") X(TO_COS, "Torch.cos") X(TO_SIN, "Torch.sin") X(TO_BADDBMM, "Torch.baddbmm") \
    X(TO_BMM, "Torch.bmm") X(TO_SUM, "Torch.sum") X(TO_ONES_LIKE, "Torch.ones_like") X(TO_POW, "Torch.pow") \
    X(TO_TANH, "Torch.tanh") X(D_ALL_REDUCE, "Distributed.all_reduce")

#define API_ENUM(id, name) id,
#define API_NAME(id, name) name,
enum { API_LIST(API_ENUM) NAPI };
static const char *const API_NAMES[NAPI] = {API_LIST(API_NAME)};

/* ----------------------------------------------------------------- state */

typedef struct {
    mod ln1, qkv, smax, adrop, core, proj, attn, ln2, fc1, fc2, mlp, layer;
} layer_mods;

typedef struct G {
    const opts *o;
    int side, step, rank, tp;          /* side 1 = target */
    int s, b, h, nh, hd, ffn, vocab;   /* sequence, micro-batch, widths (per TP rank where split) */
    uint64_t rs;
    jw dump, cons;
    arena perm, mb, *cur;              /* per step, per micro-batch; cur is where tnew allocates */
    long emitted, logical, limit, rows;
    int done, in_bwd;
    const char *bparent;               /* construct parent while replaying backward */
    unsigned mask;                     /* which sides see the calls being made: 1 bench, 2 target */
    unsigned cnt[NAPI];
    strbuf names[NSLOT];
    int order[NSLOT], ngroups;
    struct { mod *m; unsigned call; } ms[16];
    int nms;
    rec *tape;
    size_t ntape, tcap;
    mod wemb, edrop, emb, rot, dec, lnf, out;
    layer_mods *L;
    gtensor **params, *inv_freq;
    int nparams;
    /* --mode tensor: the data_name being built, where files go, what was written */
    char dn[512];
    size_t dn_len;
    int dn_fixed;
    char *tdir;
    void **bufs[2];                    /* element buffers to free: per micro-batch, per step */
    size_t nbufs[2], cbufs[2];
    long files;
    unsigned long long file_bytes;
} G;

static gtensor *tnew(G *g, int dt, int rg, int kind, double r, int nd, const int *sh);
static gtensor *grad_of(G *g, gtensor *x);
static void w_item(G *g, const item *it);
static void w_items(G *g, const item *its, int n);
static void w_dict(G *g, const item *its, int n);
static void stack_note(G *g, int slot, const char *name, size_t n);
static void jw_key(jw *w, const char *k, size_t n);
static void jw_open(jw *w, char c);
static void jw_close(jw *w, char c);
static void jw_str(jw *w, const char *s);
static void jw_put(jw *w, const char *s, size_t n);
static void jw_init(jw *w, const char *path);
static void jw_close_file(jw *w);

#define JW_LIT(w, s) jw_put((w), (s), sizeof(s) - 1)

/* A JSON string literal with the escapes json.dump uses for our ASCII text. */
static void json_quote(strbuf *sb, const char *s)
{
    sb_addc(sb, '"');
    for (; *s; s++) {
        if (*s == '\n')
            sb_add(sb, "\\n", 2);
        else if (*s == '"' || *s == '\\') {
            sb_addc(sb, '\\');
            sb_addc(sb, *s);
        } else
            sb_addc(sb, *s);
    }
    sb_addc(sb, '"');
}

/* ------------------------------------------------------ stack.json */

static char *stack_text[NSLOT];   /* "[ frames ]" at stack.json depth 2, built once */

static void add_frame(strbuf *sb, const char *f, int *first)
{
    sb_add(sb, *first ? "\n   " : ",\n   ", *first ? 4 : 5);
    *first = 0;
    json_quote(sb, f);
}

static void add_ctx_frames(strbuf *sb, int c, int skip_first, int *first)
{
    for (; c >= 0; c = CTXS[c].parent, skip_first = 0) {
        if (CTXS[c].module) {
            if (!skip_first)
                add_frame(sb, FRAME_MOD1, first);
            add_frame(sb, FRAME_MOD2, first);
        }
        for (int i = 0; i < 4 && CTXS[c].f[i]; i++)
            add_frame(sb, CTXS[c].f[i], first);
    }
}

/* Slots [0, NSITE) are API call sites, [NSITE, NSLOT) module contexts: the
 * stack of a module entry is taken inside _call_impl, after its forward. */
static void build_stacks(void)
{
    for (int s = 0; s < NSLOT; s++) {
        strbuf sb = STRBUF_INIT;
        int first = 1;
        sb_addc(&sb, '[');
        if (s < NSITE) {
            add_frame(&sb, FRAME_API_HOOK, &first);
            add_frame(&sb, SITES[s].frame, &first);
            add_ctx_frames(&sb, SITES[s].ctx, 0, &first);
        } else {
            add_frame(&sb, FRAME_MOD_HOOK, &first);
            add_ctx_frames(&sb, s - NSITE, 1, &first);
        }
        sb_add(&sb, "\n  ]", 4);
        stack_text[s] = sb_detach(&sb);
    }
}

static void stack_note(G *g, int slot, const char *name, size_t n)
{
    strbuf *sb = &g->names[slot];
    if (sb->len == 0)
        g->order[g->ngroups++] = slot;
    else
        sb_addc(sb, ',');
    sb_add(sb, "\n   \"", 5);
    sb_add(sb, name, n);
    sb_addc(sb, '"');
}

static void write_stack_json(G *g, const char *path)
{
    jw w;
    jw_init(&w, path);
    if (g->ngroups == 0)
        JW_LIT(&w, "{}");
    else
        JW_LIT(&w, "{");
    for (int i = 0; i < g->ngroups; i++) {
        int s = g->order[i];
        char head[48];
        jw_put(&w, head, (size_t)snprintf(head, sizeof head, "%s\n \"%d\": [\n  [", i ? "," : "", i));
        jw_put(&w, g->names[s].buf, g->names[s].len);
        JW_LIT(&w, "\n  ],\n  ");
        jw_put(&w, stack_text[s], strlen(stack_text[s]));
        JW_LIT(&w, "\n ]");
    }
    if (g->ngroups)
        JW_LIT(&w, "\n}");
    jw_close_file(&w);
}

#endif
