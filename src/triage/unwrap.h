// unwrap.h - an exception a compiler re-raised in its own words, back in the model's words.
//
// torch.compile (Dynamo) reports an error the converted module raises as its own: wrapped as
// "InternalTorchDynamoError: AttributeError: msg", as "RuntimeError when making fake tensor call
// ... got ValueError('msg')", as "backend='inductor' raised: | RuntimeError: msg", and followed by
// a " | from user code: ..." trailer. Eager runs of the same module raise "AttributeError: msg".
// Fake tensors also print a shape as "torch.Size([1])" where eager prints "[1]". One failure is
// one bug in both modes, so a signature takes the inner exception, shapes as lists. Messages
// that show none of these come back unchanged.
#pragma once

#include <string>
#include <string_view>

namespace nnfuzz {

struct UnwrappedError {
  std::string type;     ///< the inner exception's type (the given one when there is none)
  std::string message;  ///< the inner exception's message, without the compiler's trailer
};

UnwrappedError unwrapCompilerError(std::string_view type, std::string_view message);

}  // namespace nnfuzz
