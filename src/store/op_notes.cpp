// op_notes.cpp - the per-operator spec notes (see op_notes.h). Sorted by operator name; the
// families that share a rule (elementwise broadcasting, reductions, comparisons) share text.
#include "store/op_notes.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace nnfuzz {

namespace {

#define BROADCAST "The two inputs broadcast numpy-style (multidirectional); the result has their common dtype. "
#define COMPARE BROADCAST "The result is bool; NaN compares unequal to everything (IEEE)."
#define LOGICAL "Elementwise on bool tensors; " BROADCAST
#define REDUCE                                                                                                   \
  "`axes` lists the axes reduced (negative counts from the end; absent or empty reduces every axis, unless "     \
  "`noop_with_empty_axes`=1 where it changes nothing; from opset 18 `axes` is an input, before that an attribute " \
  "except for ReduceSum, where it is an input from opset 13). `keepdims` (default 1) keeps each reduced axis with " \
  "length 1. "
#define POOL                                                                                                    \
  "Over the spatial axes of an N x C x D1 x ... input. `kernel_shape` is required; `strides` default 1, `pads` " \
  "give begin values for every axis then end values (default 0). `auto_pad` SAME_UPPER / SAME_LOWER pad so "    \
  "that out = ceil(in / stride), putting the odd extra pad at the end / beginning; VALID means no padding. "    \
  "`ceil_mode`=1 rounds the output length up instead of down. "
#define UNARY "Elementwise, same shape and dtype as the input. "

struct OpNote {
  std::string_view op, note;
};

constexpr OpNote kNotes[] = {
    {"Abs", UNARY "|x|; for signed integers the most negative value has no positive counterpart."},
    {"Acos", UNARY "Arc cosine in radians; inputs outside [-1, 1] give NaN."},
    {"Acosh", UNARY "Inverse hyperbolic cosine; inputs below 1 give NaN."},
    {"Add", BROADCAST "Integer addition wraps around on overflow."},
    {"AffineGrid", "The sampling grid GridSample reads (opset 20): theta (N x 2 x 3, or N x 3 x 4 in 3-D) times the base "
                   "coordinates (x, y(, z), 1) of an output of `size` (N, C, H, W) or (N, C, D, H, W); the grid is "
                   "N x H x W x 2 (or N x D x H x W x 3), x first. `align_corners` (default 0) as in GridSample: 1 puts "
                   "-1 and 1 at the corner pixels' centres, 0 at their outer edges."},
    {"And", LOGICAL},
    {"ArgMax", "Index (int64) of the largest element along `axis` (default 0). `keepdims` (default 1) keeps the "
               "axis with length 1. Ties: the first occurrence, or the last when `select_last_index`=1."},
    {"ArgMin", "Index (int64) of the smallest element along `axis` (default 0). `keepdims` (default 1) keeps the "
               "axis with length 1. Ties: the first occurrence, or the last when `select_last_index`=1."},
    {"Asin", UNARY "Arc sine in radians; inputs outside [-1, 1] give NaN."},
    {"Asinh", UNARY "Inverse hyperbolic sine."},
    {"Atan", UNARY "Arc tangent in radians."},
    {"Atanh", UNARY "Inverse hyperbolic tangent; +-1 give +-inf, beyond them NaN."},
    {"AveragePool", POOL "`count_include_pad` (default 0) decides whether padded zeros count in the divisor."},
    {"BatchNormalization", "Inference form: y = scale * (x - mean) / sqrt(var + epsilon) + B per channel (axis 1). "
                           "`epsilon` defaults to 1e-5. `training_mode`=0 (default) uses the given mean and var."},
    {"BitShift", "Shifts X by Y bits elementwise (unsigned integers, multidirectional broadcasting), `direction` "
                 "LEFT or RIGHT (required); bits shifted past the type's width are lost."},
    {"BitwiseAnd", BROADCAST "Bitwise AND of integers (opset 18), on the two's-complement bits of the dtype."},
    {"BitwiseNot", UNARY "Bitwise NOT of integers (opset 18): -x - 1 for signed types, max - x for unsigned ones."},
    {"BitwiseOr", BROADCAST "Bitwise OR of integers (opset 18), on the two's-complement bits of the dtype."},
    {"BitwiseXor", BROADCAST "Bitwise XOR of integers (opset 18), on the two's-complement bits of the dtype."},
    {"BlackmanWindow", "A 1-D window of `size` (a scalar input) samples, 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / "
                       "N); N is size when `periodic`=1 (default), size - 1 otherwise; `output_datatype` (default "
                       "float) names the result type."},
    {"Cast", "Converts to dtype `to`. Float to integer truncates toward zero; out-of-range float to integer is "
             "undefined; to bool, any non-zero value is true; from bool, true is 1."},
    {"CastLike", "Cast to the dtype of the second input (its values are ignored); the conversion rules are Cast's."},
    {"Ceil", UNARY "The smallest integer value not below x."},
    {"Celu", UNARY "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), `alpha` defaults to 1.0."},
    {"CenterCropPad", "Crops or zero-pads each dim in `axes` (default all) to `shape` (opset 18), centred: a crop starts "
                      "at (dim - target) / 2, a pad puts the input at (target - dim) / 2, both rounded down."},
    {"Clip", "Limits every element to [min, max], given as optional scalar inputs (absent: no limit on that side). "
             "When min > max the result is max everywhere."},
    {"Col2Im", "Sums column blocks back into an image (opset 18): input N x (C * prod(block_shape)) x L becomes N x C x "
               "image_shape; `strides`, `dilations` (default 1) and `pads` (default 0) place the blocks as a "
               "convolution's windows, and L must be the number of window positions. Overlapping taps add up."},
    {"Compress", "The slices along `axis` (or without axis the elements of the flattened input) where the 1-D "
                 "bool condition is true; a shorter condition drops the rest."},
    {"Concat", "Joins the inputs along `axis` (required; negative counts from the end); every other dimension "
               "must agree."},
    {"ConstantOfShape", "A tensor of the shape given by the int64 input, every element the one-element tensor "
                        "attribute `value` (default a float32 0)."},
    {"Conv", "N x C x D1... input, M x C/group x k1... weights, optional bias of length M. `strides` and "
             "`dilations` default 1, `pads` give begins then ends (default 0), `group` (default 1) splits the "
             "channels. `auto_pad` SAME_UPPER / SAME_LOWER make out = ceil(in / stride) with the odd pad at the "
             "end / beginning. `kernel_shape` defaults to the weights' spatial shape."},
    {"ConvInteger", "Conv on 8-bit integers with optional zero points (x_zero_point scalar, w_zero_point per output "
                    "channel) subtracted first; accumulates and returns int32. Same geometry attributes as Conv."},
    {"ConvTranspose", "The gradient of Conv: weights are C x M/group x k1.... out = stride * (in - 1) + "
                      "output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end, unless `output_shape` is "
                      "given, which fixes the total padding. `output_padding` adds to the end only."},
    {"Cos", UNARY "Cosine of x in radians."},
    {"Cosh", UNARY "Hyperbolic cosine."},
    {"CumSum", "Running sum along the axis given as a scalar input. `exclusive`=1 leaves out the element itself "
               "(the first result is 0); `reverse`=1 sums from the end."},
    {"DFT", "The discrete Fourier transform along `axis` (default 1) of a signal whose last dim is 1 (real) "
            "or 2 (real, imaginary); the result is complex (last dim 2). The optional dft_length input cuts "
            "or zero-pads the signal; `inverse`=1 uses the + sign and divides by the length; `onesided`=1 "
            "keeps bins 0..length/2."},
    {"DepthToSpace", "Moves channel blocks into blocksize x blocksize spatial blocks. `mode` DCR (default) takes "
                     "depth, then column, then row; CRD takes column, row, depth: the two orders differ."},
    {"DequantizeLinear", "y = (x - x_zero_point) * x_scale; a scalar scale and zero point are per tensor, 1-D ones "
                         "per slice along `axis` (default 1). The zero point defaults to 0."},
    {"Det", "Determinant of each square matrix in the last two axes; batch axes are kept."},
    {"Div", BROADCAST "Integer division truncates toward zero; integer division by zero is undefined."},
    {"Dropout", "At inference (training_mode false, the default) the output is the input unchanged and the optional "
                "mask is all true; `ratio` only matters in training."},
    {"DynamicQuantizeLinear", "Quantizes float32 to uint8 with a scale and zero point computed from the data: the "
                              "range [min(x, 0), max(x, 0)] maps to [0, 255]; the zero point is rounded half to even "
                              "and saturated."},
    {"Einsum", "Sums of products over the letters of `equation` (e.g. \"bij,bjk->bik\"): each letter names an "
               "axis, a letter repeated within a term takes a diagonal, letters missing from the output are "
               "summed, \"...\" stands for broadcast leading axes; without \"->\" the output is the letters that "
               "occur once, sorted."},
    {"Elu", UNARY "x for x >= 0, else alpha * (exp(x) - 1); `alpha` defaults to 1.0."},
    {"Equal", COMPARE},
    {"Erf", UNARY "The Gauss error function."},
    {"Exp", UNARY "e to the power x."},
    {"Expand", "Broadcasts the input to the shape input (numpy rules, both ways: a dimension of 1 in the shape "
               "keeps the input's dimension), so the result may be larger than the shape asked for."},
    {"EyeLike", "A 2-D tensor shaped like the input, ones on diagonal `k` (default 0, positive above the main one) "
                "and zeros elsewhere; dtype `dtype` or the input's."},
    {"Flatten", "Reshapes to 2-D: dims before `axis` (default 1) multiply into the first, the rest into the second; "
                "`axis`=0 gives 1 x total."},
    {"Floor", UNARY "The largest integer value not above x."},
    {"GRU", "One-layer gated recurrent unit over X (seq x batch x input; `layout`=1: batch first). W, R hold the "
            "z, r, h gate blocks per direction; optional B (W and R biases), sequence_lens (int32; outputs past a "
            "length are 0), initial_h. `activations` default Sigmoid, Tanh per direction; `linear_before_reset`=1 "
            "applies the reset gate after the recurrent product. Outputs Y, Y_h, both optional."},
    {"Gather", "Picks entries of `data` along `axis` (default 0) at `indices`; negative indices count from the end. "
               "The result shape is data.shape[:axis] + indices.shape + data.shape[axis+1:]."},
    {"GatherElements", "out[i][j][k] = data[...] with the index along `axis` (default 0) replaced by indices[i][j][k]; "
                       "the result has the indices' shape; negative indices count from the end."},
    {"GatherND", "Gathers slices of data addressed by the last axis of `indices` (index tuples); `batch_dims` "
                 "(default 0) leading axes are shared batch axes. Negative indices count from the end."},
    {"Gelu", UNARY "x * Phi(x) (opset 20): `approximate` none (default) uses erf, tanh uses 0.5 x (1 + "
             "tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."},
    {"Gemm", "Y = alpha * A' * B' + beta * C, with A' = A transposed when `transA`=1 and B' likewise with "
             "`transB`; `alpha` and `beta` default to 1.0; C broadcasts to M x N (unidirectionally)."},
    {"GlobalAveragePool", "Mean over every spatial axis of an N x C x D1... input; the result is N x C x 1 x 1...."},
    {"GlobalLpPool", "The Lp norm (`p`, default 2) over every spatial axis; the result is N x C x 1 x 1...."},
    {"GlobalMaxPool", "Maximum over every spatial axis of an N x C x D1... input; the result is N x C x 1 x 1...."},
    {"Greater", COMPARE},
    {"GreaterOrEqual", COMPARE},
    {"GridSample", "Samples X (N x C x H x W) at the normalised (x, y) points of grid (N x H_out x W_out x 2). "
                   "`mode` bilinear (default) / nearest / bicubic; `padding_mode` zeros (default) / border / "
                   "reflection for points outside; `align_corners` (default 0) maps -1 and 1 to the corner pixels' "
                   "centres instead of their outer edges."},
    {"GroupNormalization", "Splits the C channels into `num_groups` groups (required, must divide C) and normalises each "
                           "(sample, group) by its mean and variance: (x - mean) / sqrt(var + epsilon) (default 1e-5), "
                           "then scale and bias per channel (length C, opset 21; version 18 took them per group)."},
    {"HammingWindow", "A 1-D window of `size` (a scalar input) samples, 25/46 - 21/46 cos(2 pi n / N); N is size when "
                      "`periodic`=1 (default), size - 1 otherwise; `output_datatype` (default float) names the result "
                      "type."},
    {"HannWindow", "A 1-D window of `size` (a scalar input) samples, sin^2(pi n / N); N is size when `periodic`=1 "
                   "(default), size - 1 otherwise; `output_datatype` (default float) names the result type."},
    {"HardSigmoid", UNARY "max(0, min(1, alpha * x + beta)), `alpha` 0.2 and `beta` 0.5 by default."},
    {"HardSwish", UNARY "x * max(0, min(1, x / 6 + 1/2)): HardSigmoid with alpha 1/6 and beta 0.5, times x."},
    {"Hardmax", "1 at the first maximum along `axis` (default -1 since opset 13), 0 elsewhere."},
    {"Identity", "Returns its input unchanged."},
    {"If", "Runs then_branch when the one-element bool cond is true, else_branch otherwise; both are graphs "
           "without inputs that may read the enclosing graph's values, and give the node's outputs."},
    {"InstanceNormalization", "Per sample and channel: (x - mean) / sqrt(var + epsilon) * scale + B, the mean and "
                              "(biased) variance over the spatial axes; `epsilon` defaults to 1e-5."},
    {"IsInf", "True where x is infinite; `detect_positive` and `detect_negative` (both default 1) choose the signs."},
    {"IsNaN", "True where x is NaN."},
    {"LRN", "Across channels: x / (bias + alpha / size * sum of squares over the `size` neighbouring channels) ^ "
            "beta; the window spans floor((size-1)/2) channels before and ceil((size-1)/2) after. Defaults: "
            "alpha 1e-4, beta 0.75, bias 1.0."},
    {"LSTM", "One-layer LSTM over X (seq x batch x input; `layout`=1: batch first). W, R hold the i, o, f, c gate "
             "blocks per direction; optional B, sequence_lens (int32), initial_h, initial_c and P (peepholes i, o, "
             "f). `activations` default Sigmoid, Tanh, Tanh per direction; `clip` bounds activation inputs; "
             "`input_forget`=1 couples the forget gate to 1 - input gate. Outputs Y, Y_h, Y_c, all optional."},
    {"LayerNormalization", "Normalizes over the axes from `axis` (default -1) to the end: (x - mean) / sqrt(var + "
                           "epsilon) * Scale + B, `epsilon` default 1e-5; the variance is biased. Optional Mean and "
                           "InvStdDev outputs."},
    {"LeakyRelu", UNARY "x for x >= 0, else alpha * x; `alpha` defaults to 0.01."},
    {"Less", COMPARE},
    {"LessOrEqual", COMPARE},
    {"Log", UNARY "Natural logarithm; log(0) is -inf and negative inputs give NaN."},
    {"LogSoftmax", "log(softmax(x)) along `axis` (default -1 since opset 13; earlier versions flattened the input "
                   "to 2-D at `axis`, default 1)."},
    {"Loop", "Runs `body` (iteration number, condition, carried values) while iteration < M and the condition "
             "holds; the body returns the next condition, the carried values and scan outputs, stacked along a new "
             "first axis, one row per iteration."},
    {"LpNormalization", "Divides by the Lp norm (`p` 1 or 2, default 2) along `axis` (default -1)."},
    {"LpPool", POOL "Each window gives the Lp norm (`p`, default 2) of its elements."},
    {"MatMul", "Matrix product as numpy.matmul: 1-D operands are promoted (and the added axis removed after), "
               "batch dimensions broadcast."},
    {"MatMulInteger", "MatMul on 8-bit integers with optional zero points subtracted first (a_zero_point per row or "
                      "tensor, b_zero_point per column or tensor); returns int32."},
    {"Max", "Elementwise maximum of any number of inputs with numpy broadcasting; a NaN operand gives NaN."},
    {"MaxPool", POOL "`dilations` default 1. `storage_order` only affects the optional Indices output."},
    {"MaxRoiPool", "Max over the bins (`pooled_shape`) of regions rois (num_rois x 5: batch index, x1, y1, x2, y2) "
                   "scaled by `spatial_scale` (default 1) and rounded to pixels; an empty bin gives 0."},
    {"MaxUnpool", "Scatters X into a zero tensor at the flat positions in I (MaxPool's Indices); the output size "
                  "follows kernel_shape, strides and pads, or the optional output_shape input."},
    {"Mean", "Elementwise mean of any number of inputs with numpy broadcasting."},
    {"MeanVarianceNormalization", "(x - mean) / sqrt(variance) over `axes` (default [0, 2, 3]); the variance is "
                                  "biased, and no epsilon is added in the specification."},
    {"MelWeightMatrix", "The [dft_length/2 + 1, num_mel_bins] matrix of triangular mel filters between lower_edge_hertz "
                        "and upper_edge_hertz at sample_rate (all scalar inputs); `output_datatype` (default float) "
                        "names the result type."},
    {"Min", "Elementwise minimum of any number of inputs with numpy broadcasting; a NaN operand gives NaN."},
    {"Mish", UNARY "x * tanh(softplus(x)) = x * tanh(ln(1 + e^x)) (opset 18)."},
    {"Mod", BROADCAST "`fmod`=0 (default, integers only): the result takes the divisor's sign, like Python's %. "
                      "`fmod`=1: the dividend's sign, like C fmod (required for floats)."},
    {"Mul", BROADCAST "Integer multiplication wraps around on overflow."},
    {"Neg", UNARY "-x."},
    {"NegativeLogLikelihoodLoss", "Per element -input[n, target, d...] times the class weight (optional input, default 1) for "
                                  "input [N, C, d...] and integer target [N, d...]; targets equal to `ignore_index` count 0. "
                                  "`reduction` none keeps the losses, sum adds them, mean (default) divides the sum by the applied "
                                  "weights' sum."},
    {"NonMaxSuppression", "Per batch and class, boxes in descending score order, each kept unless its IoU with a kept box "
                          "exceeds iou_threshold, up to max_output_boxes_per_class; score_threshold drops boxes not above "
                          "it. Boxes are [y1, x1, y2, x2] (`center_point_box`=0, default) or [x_center, y_center, width, "
                          "height]; the result is int64 rows (batch, class, box)."},
    {"NonZero", "The int64 indices of the non-zero elements, one column per element in row-major order: shape "
                "[rank, count]."},
    {"Not", UNARY "Logical negation of a bool tensor."},
    {"OneHot", "A new axis of length depth at `axis` (default -1): values[1] where the index is (negative "
               "indices count from depth), values[0] elsewhere; indices outside [-depth, depth-1] give all "
               "values[0]."},
    {"Or", LOGICAL},
    {"PRelu", "x for x >= 0, else slope * x; `slope` broadcasts unidirectionally to x."},
    {"Pad", "`pads` (an input since opset 11) give begin values for every axis, then end values; negative values "
            "crop. `mode` constant (default, with the optional constant_value input, default 0), reflect "
            "(mirror without repeating the edge) or edge (repeat the edge)."},
    {"Pow", "x ^ y elementwise with numpy broadcasting; the result has x's dtype."},
    {"QLinearConv", "Conv on quantized tensors: x and w are dequantized with their scales and zero points (w per "
                    "tensor or per output channel), the optional int32 bias has scale x_scale * w_scale, and the "
                    "result is requantized with y_scale and y_zero_point (round half to even, saturate)."},
    {"QLinearMatMul", "MatMul on quantized tensors: inputs dequantized with their scales and zero points, the "
                      "product requantized with y_scale and y_zero_point (round half to even, saturate)."},
    {"QuantizeLinear", "y = saturate(round(x / y_scale) + y_zero_point), rounding half to even; per tensor, or per "
                       "slice along `axis` (default 1) for 1-D scales. The zero point's dtype (default uint8) is the "
                       "output's."},
    {"RNN", "One-layer simple RNN over X (seq x batch x input; `layout`=1: batch first): H = f(X W^T + H R^T + "
            "Wb + Rb), `activations` default Tanh per direction; `direction` forward (default) / reverse / "
            "bidirectional; optional B, sequence_lens (int32), initial_h. Outputs Y, Y_h, both optional."},
    {"Range", "start, start + delta, ... up to but excluding limit (scalar inputs); the length is max(ceil((limit - "
              "start) / delta), 0)."},
    {"Reciprocal", UNARY "1 / x; 1 / 0 is inf."},
    {"ReduceL1", REDUCE "Sum of absolute values."},
    {"ReduceL2", REDUCE "Square root of the sum of squares."},
    {"ReduceLogSum", REDUCE "log(sum(x))."},
    {"ReduceLogSumExp", REDUCE "log(sum(exp(x)))."},
    {"ReduceMax", REDUCE "Maximum."},
    {"ReduceMean", REDUCE "Arithmetic mean."},
    {"ReduceMin", REDUCE "Minimum."},
    {"ReduceProd", REDUCE "Product."},
    {"ReduceSum", REDUCE "Sum."},
    {"ReduceSumSquare", REDUCE "Sum of squares."},
    {"Relu", UNARY "max(0, x)."},
    {"Reshape", "Gives the data the shape input's shape: one -1 dimension is inferred; 0 copies the input's "
                "dimension at that position unless `allowzero`=1, where 0 means an empty dimension."},
    {"Resize", "Scales each axis by `scales` or to `sizes` (inputs). `mode` nearest (default) / linear / cubic; "
               "`coordinate_transformation_mode` (default half_pixel) maps output to input coordinates; "
               "`nearest_mode` (default round_prefer_floor) rounds for nearest; `cubic_coeff_a` default -0.75; "
               "`exclude_outside` and `extrapolation_value` (tf_crop_and_resize only)."},
    {"ReverseSequence", "Reverses the first sequence_lens[i] elements of each batch entry along `time_axis` (default "
                        "0); `batch_axis` defaults to 1. Elements past the length stay in place."},
    {"RoiAlign", "Average (`mode` avg, default) or max of bilinear samples over each output bin "
                 "(`output_height` x `output_width`, default 1) of the regions rois (x1, y1, x2, y2) of images "
                 "batch_indices; `sampling_ratio` samples per bin side (0: adaptive); "
                 "`coordinate_transformation_mode` half_pixel (default) shifts by half a pixel."},
    {"Round", UNARY "To the nearest integer, halves to even (2.5 -> 2, -0.5 -> -0)."},
    {"STFT", "Short-time Fourier transform of a [batch, length, 1 or 2] signal: frames of frame_length "
             "samples (an input, or the window's length) every frame_step samples, each multiplied by the "
             "optional window and transformed; [batch, frames, bins, 2] with bins = frame_length/2 + 1 when "
             "`onesided`=1 (default)."},
    {"Scan", "Runs `body` once per slice of the scan inputs along `scan_input_axes` (default 0; reversed where "
             "`scan_input_directions` is 1), carrying states from step to step; each scan output stacks the "
             "body's per-step element along `scan_output_axes`."},
    {"ScatterElements", "A copy of data with updates written at the positions given by indices along `axis` (default "
                        "0); `reduction` none (default; duplicate indices are undefined), add, mul, max or min "
                        "combines instead."},
    {"ScatterND", "A copy of data with update slices written at the index tuples in the last axis of indices; "
                  "`reduction` none (default; duplicate tuples are undefined), add, mul, max or min combines instead."},
    {"Selu", UNARY "gamma * (x for x > 0, else alpha * exp(x) - alpha); `alpha` ~1.67326 and `gamma` ~1.0507 by "
                   "default."},
    {"Shape", "The input's shape as a 1-D int64 tensor; `start` and `end` (opset 15) slice it like Python, negative "
              "values counting from the end."},
    {"Shrink", UNARY "x + bias for x < -lambd, x - bias for x > lambd, else 0; `lambd` default 0.5, `bias` default 0."},
    {"Sigmoid", UNARY "1 / (1 + exp(-x))."},
    {"Sign", UNARY "-1, 0 or 1 by the sign of x."},
    {"Sin", UNARY "Sine of x in radians."},
    {"Sinh", UNARY "Hyperbolic sine."},
    {"Size", "The number of elements of the input, as an int64 scalar."},
    {"Slice", "`starts`, `ends` (exclusive), optional `axes` and `steps` are inputs. Negative values count from the "
              "end; out-of-range starts and ends are clamped ([0, dim] for a positive step, [-1, dim-1] for a "
              "negative one); a step may be negative but not 0."},
    {"Softmax", "exp(x) / sum(exp(x)) along `axis` (default -1 since opset 13; earlier versions flattened the "
                "input to 2-D at `axis`, default 1)."},
    {"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss of log_softmax(scores) along axis 1 (same target, weights, "
                                "`ignore_index` and `reduction`, default mean); the optional second output is that log_prob."},
    {"Softplus", UNARY "log(exp(x) + 1)."},
    {"Softsign", UNARY "x / (1 + |x|)."},
    {"SpaceToDepth", "Moves blocksize x blocksize spatial blocks into the channel axis (the inverse of "
                     "DepthToSpace in DCR mode)."},
    {"Split", "Splits along `axis` (default 0) into the outputs: sizes from the `split` input, or equal parts "
              "(from opset 18 `num_outputs`, the last part smaller when the length does not divide)."},
    {"Sqrt", UNARY "Square root; negative inputs give NaN."},
    {"Squeeze", "Removes the axes listed in the `axes` input (an input since opset 13), each of length 1; without "
                "axes, every axis of length 1."},
    {"Sub", BROADCAST "Integer subtraction wraps around on overflow."},
    {"Sum", "Elementwise sum of any number of inputs with numpy broadcasting."},
    {"Tan", UNARY "Tangent of x in radians."},
    {"Tanh", UNARY "Hyperbolic tangent."},
    {"TfIdfVectorizer", "Counts, per row of integer (or string) tokens, the n-grams of the pool (pool_int64s split by "
                        "ngram_counts into 1-grams, 2-grams, ...) of sizes [min_gram_length, max_gram_length], "
                        "allowing up to max_skip_count skipped tokens between items; n-gram k goes to column "
                        "ngram_indexes[k]. `mode` TF (counts), IDF (weight where the count is non-zero), TFIDF "
                        "(count * weight); float32 output."},
    {"ThresholdedRelu", UNARY "x for x > alpha, else 0; `alpha` defaults to 1.0."},
    {"Tile", "Repeats the input `repeats[i]` times along axis i (`repeats` is an int64 input, one per axis)."},
    {"TopK", "The K (an int64 input) largest (`largest`=1, default) or smallest values along `axis` (default -1) and "
             "their int64 indices; `sorted` (default 1) orders them. Ties: the lower index comes first."},
    {"Transpose", "Permutes the axes by `perm` (default: reverse them): output axis i is input axis perm[i]."},
    {"Trilu", "Keeps the upper (`upper`=1, default) or lower triangle of the last two axes, shifted by the "
              "optional diagonal input k (positive: above the main diagonal); the rest becomes 0."},
    {"Unique", "The distinct elements (or with `axis` the distinct slices), ascending when `sorted`=1 (default) "
               "else in order of first occurrence, with the int64 first-occurrence indices, each element's "
               "index into them, and the counts."},
    {"Unsqueeze", "Inserts axes of length 1 at the positions of the `axes` input (an input since opset 13), "
                  "positions counted in the output's rank."},
    {"Where", "condition ? X : Y elementwise, the three inputs broadcast numpy-style."},
    {"Xor", LOGICAL},

};

#undef BROADCAST
#undef COMPARE
#undef LOGICAL
#undef REDUCE
#undef POOL
#undef UNARY

}  // namespace

std::optional<std::string> onnxOpNote(const std::string& op) {
  const auto* it = std::lower_bound(std::begin(kNotes), std::end(kNotes), op,
                                    [](const OpNote& n, const std::string& key) { return n.op < key; });
  if (it == std::end(kNotes) || it->op != op) return std::nullopt;
  return std::string(it->note);
}

std::string onnxOpDocUrl(const std::string& op) { return "https://onnx.ai/onnx/operators/onnx__" + op + ".html"; }

}  // namespace nnfuzz
