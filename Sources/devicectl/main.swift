// devicectl: the executable. All behaviour lives in DevicectlCLI and the libraries.
import DevicectlCLI
import Glibc

// The arguments as the bytes the kernel passed: a file name need not be UTF-8.
let arguments = (1..<Int(CommandLine.argc)).map { index -> [UInt8] in
    guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
    return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
}
exit(Devicectl.main(argumentBytes: arguments))
