#include "cli/cli.h"

namespace nnfuzz::cli {

int main(int, char**) { return 0; }

}  // namespace nnfuzz::cli
