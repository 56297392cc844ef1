// memstand: thin entry point; everything else is in memstand_lib.
#include "cli/cli.h"

int main(int argc, char** argv) { return memstand::cli::Main(argc, argv); }
