// main.cpp - the nnfuzz executable: everything lives in the cli module.
#include "cli/cli.h"

int main(int argc, char** argv) { return nnfuzz::cli::main(argc, argv); }
