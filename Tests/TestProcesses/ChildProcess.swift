import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests and the test worker.
///
/// It exists because Foundation's `Process.run()` can crash (SIGSEGV in `memcpy`) in a
/// process with many open file descriptors: swift-corelibs-foundation's
/// `findMaximumOpenFromProcSelfFD()` copies the whole 256-byte `d_name` of each
/// `/proc/self/fd` entry, reading past the end of glibc's `readdir` buffer (fixed upstream
/// in swift-corelibs-foundation PR #5472, not in the toolchain these tests use). The tests
/// open up to ~1,900 descriptors at once, and every `Process.run()` was a chance to crash.
/// This type never reads `/proc/self/fd`.
///
/// The child starts with no blocked signals and every signal's default action (as
/// Foundation's children do), and with only its descriptors 0, 1 and 2 open, when the C
/// library can close the others in the child (`posix_spawn_file_actions_addclosefrom_np`).
/// The parent's ends of the pipes are close-on-exec, so no other child inherits them: a
/// child reading its standard input sees its end once this process closes the writer.
///
/// A pipe is read by the caller, before `waitUntilExit()`: a child that writes more than
/// a pipe holds would otherwise wait for a reader while the caller waits for it to end.
/// `waitUntilExit()` reaps the child; one never waited for stays a zombie until the test
/// process ends.
public final class ChildProcess {
    /// Where the child's standard input comes from.
    public enum Input {
        /// The test process's own standard input.
        case inherit
        /// `/dev/null`: the child reads end of file at once.
        case nullDevice
        /// A pipe that the caller writes to through `standardInputWriter` and closes.
        case pipe
    }

    /// Where the child's standard output or standard error goes.
    public enum Output {
        /// The test process's own.
        case inherit
        /// `/dev/null`.
        case nullDevice
        /// A pipe that the caller reads through `standardOutputReader` (or
        /// `standardErrorReader`).
        case pipe
        /// A file, created or truncated.
        case file(String)
        /// For standard error only: where standard output goes, merged with it.
        case standardOutput
    }

    /// How the child ended, as Foundation's `Process.TerminationReason` says it.
    public enum TerminationReason: Sendable {
        /// It exited; `terminationStatus` is its exit status.
        case exit
        /// A signal ended it; `terminationStatus` is the signal's number.
        case uncaughtSignal
    }

    /// A child that could not be started, or a pipe that could not be made.
    public struct SpawnError: Error, CustomStringConvertible {
        public let executable: String
        public let operation: String
        public let code: Int32

        public var description: String {
            "\(operation) for \(executable) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// The program as given: a path, or a name looked up in `PATH`.
    public let executable: String
    /// The arguments after the program's name.
    public let arguments: [String]
    public let processIdentifier: pid_t
    /// The parent's end of the standard input pipe (`.pipe` only): close it to let the
    /// child read end of file.
    public let standardInputWriter: FileHandle?
    /// The parent's end of the standard output pipe (`.pipe` only).
    public let standardOutputReader: FileHandle?
    /// The parent's end of the standard error pipe (`.pipe` only).
    public let standardErrorReader: FileHandle?

    /// The raw `waitpid` status, once the child has been reaped.
    private var waitStatus: Int32?

    /// Starts `executable` (a path, or a name found in `PATH`) with `arguments`.
    /// `environment` replaces the test process's own, which the child inherits when it is
    /// `nil`.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput: Input = .inherit, standardOutput: Output = .inherit, standardError: Output = .inherit
    ) throws {
        self.executable = executable
        self.arguments = arguments
        func failure(_ operation: String, _ code: Int32) -> SpawnError {
            SpawnError(executable: executable, operation: operation, code: code)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child's ends of the pipes, closed here once the child has them.
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        var parentEnds: [Int32] = []
        func makePipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw failure("pipe", errno) }
            // Close-on-exec (the Glibc module has no pipe2): the parent's ends stay out of
            // children spawned later, where the C library cannot close them for us.
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }
        do {
            switch standardInput {
            case .inherit: break
            case .nullDevice: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            case .pipe:
                let ends = try makePipe()
                childEnds.append(ends.read)
                parentEnds.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
            }
            var outputReader: Int32?
            var errorReader: Int32?
            for (target, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
                switch output {
                case .inherit: break
                case .nullDevice: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                case .pipe:
                    let ends = try makePipe()
                    childEnds.append(ends.write)
                    parentEnds.append(ends.read)
                    if target == 1 { outputReader = ends.read } else { errorReader = ends.read }
                    posix_spawn_file_actions_adddup2(&actions, ends.write, target)
                case .standardOutput:
                    precondition(target == 2, "only standard error can go where standard output goes")
                    posix_spawn_file_actions_adddup2(&actions, 1, 2)
                }
            }
            // Nothing else of the test process's: not its sockets, not other children's pipes
            // (the pipes' own ends were duplicated onto 0, 1 and 2 above).
            _ = Self.closeFrom?(&actions, 3)

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            var everySignal = sigset_t()
            sigfillset(&everySignal)
            sigdelset(&everySignal, SIGKILL)
            sigdelset(&everySignal, SIGSTOP)
            posix_spawnattr_setsigdefault(&attributes, &everySignal)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
            defer { for variable in envp ?? [] { free(variable) } }
            var pid: pid_t = 0
            let code = envp.withOptionalBuffer { envp in
                argv.withUnsafeBufferPointer { argv in
                    let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = envp ?? environ
                    return posix_spawnp(&pid, executable, &actions, &attributes, argv.baseAddress!, table)
                }
            }
            guard code == 0 else { throw failure("posix_spawnp", code) }
            processIdentifier = pid
            standardInputWriter =
                standardInput.isPipe ? FileHandle(fileDescriptor: parentEnds[0], closeOnDealloc: true) : nil
            standardOutputReader = outputReader.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
            standardErrorReader = errorReader.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        } catch {
            for fd in parentEnds { close(fd) }
            throw error
        }
    }

    /// Whether the child has not ended yet; reaps it (without waiting) if it has.
    public var isRunning: Bool {
        if waitStatus != nil { return false }
        var status: Int32 = 0
        let reaped = waitpid(processIdentifier, &status, WNOHANG)
        if reaped == processIdentifier {
            waitStatus = status
            return false
        }
        return reaped == 0
    }

    /// Waits for the child to end and reaps it. Read its pipes first.
    public func waitUntilExit() {
        while waitStatus == nil {
            var status: Int32 = 0
            let reaped = waitpid(processIdentifier, &status, 0)
            if reaped == processIdentifier {
                waitStatus = status
            } else if reaped == -1 && errno != EINTR {
                preconditionFailure("waitpid \(processIdentifier): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The exit status, or the number of the signal that ended the child (see
    /// `terminationReason`). Only once it has ended.
    public var terminationStatus: Int32 {
        let status = ended()
        return Self.signalled(status) ? status & 0x7f : (status >> 8) & 0xff
    }

    /// Whether the child exited or a signal ended it. Only once it has ended.
    public var terminationReason: TerminationReason {
        Self.signalled(ended()) ? .uncaughtSignal : .exit
    }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// Sends SIGKILL: no handler, no cleanup.
    public func kill() { signal(SIGKILL) }

    /// Sends `number` to the child, unless it has been reaped (its pid may be another's).
    public func signal(_ number: Int32) {
        guard waitStatus == nil else { return }
        _ = Glibc.kill(processIdentifier, number)
    }

    private func ended() -> Int32 {
        guard let waitStatus else { preconditionFailure("\(executable) has not been waited for") }
        return waitStatus
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run
    /// time: the Glibc module leaves it out (it is declared under `_GNU_SOURCE`). `nil` with
    /// an older C library, where the child inherits the descriptors that are not
    /// close-on-exec.
    private static var closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)?
    {
        // A nil handle is RTLD_DEFAULT: the process's global symbols.
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast(
                $0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
        }
    }

    /// `WIFSIGNALED`, which Swift does not import (a macro).
    private static func signalled(_ status: Int32) -> Bool {
        let signal = status & 0x7f
        return signal != 0 && signal != 0x7f
    }
}

extension ChildProcess.Input {
    fileprivate var isPipe: Bool {
        if case .pipe = self { return true }
        return false
    }
}

extension Optional where Wrapped == [UnsafeMutablePointer<CChar>?] {
    /// The array's storage for a C call, or `nil`.
    fileprivate func withOptionalBuffer<R>(
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> R
    ) -> R {
        guard var array = self else { return body(nil) }
        return array.withUnsafeMutableBufferPointer { body($0.baseAddress) }
    }
}
