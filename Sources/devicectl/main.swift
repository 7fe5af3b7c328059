// devicectl: the executable. All behaviour lives in DevicectlCLI and the libraries.
import DevicectlCLI
import Glibc

exit(Devicectl.main(Array(CommandLine.arguments.dropFirst())))
