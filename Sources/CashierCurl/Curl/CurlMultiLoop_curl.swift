internal import CCurl
internal import CCurlShims
import Foundation
import Synchronization

/// One thread driving many transfers at once through libcurl's socket interface: libcurl says
/// which sockets to watch and when its next timer is due, the thread waits for them in `epoll`
/// and tells libcurl which are ready — so a transfer waiting on a slow server holds no thread,
/// only the sockets that are ready are looked at, and the connections finished transfers leave
/// open stay in the loop's cache for the next transfer to the same host.
///
/// A few loops serve the whole process (``shared``: one per core, up to four, so TLS handshakes
/// are not all on one thread), each started once and never stopped. Never Swift's cooperative
/// threads: `epoll_wait` blocks, and blocking those starves every task in the process.
///
/// Only the loop's thread touches the multi handle and the state below ``incoming``; other threads
/// only queue transfers and signal the event descriptor. Hence `@unchecked Sendable`.
final class CurlMultiLoop: @unchecked Sendable {
    /// An easy handle whose options are set, handed to a loop to run.
    struct Transfer: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
        /// Called on the loop's thread once the transfer is over (the handle is out of the loop by then).
        let done: @Sendable (CURLcode) -> Void
    }

    private let multi: UnsafeMutableRawPointer
    private let epoll: Int32
    private let wakeup: Int32
    private let incoming = Mutex<[Transfer]>([])

    // The loop's thread only.
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]
    private var watched: Set<Int32> = []
    private var timer: ContinuousClock.Instant?

    /// How many open connections each loop keeps for later transfers. libcurl's own default is
    /// four for each transfer running at that moment, so a loop whose transfers come and go closed
    /// the connections it had just used whenever few were running — under load, about one new
    /// TCP connection (and, to a provider, one TLS handshake) for every other call. A loop holds
    /// only as many as its busiest moment used, so this bounds the descriptors the loops may keep
    /// (four loops at most: 512).
    static let maximumOpenConnections = 128

    /// The process's loops.
    static let shared: [CurlMultiLoop] = (0..<max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))).map { _ in
        CurlMultiLoop()
    }
    private static let turn = Atomic<Int>(0)

    /// The next of the ``shared`` loops, in turn.
    static func next() -> CurlMultiLoop {
        shared[turn.add(1, ordering: .relaxed).newValue % shared.count]
    }

    private init() {
        guard let multi = curl_multi_init() else { fatalError("libcurl could not make a multi handle (out of memory)") }
        self.multi = multi
        epoll = cashier_epoll_create()
        wakeup = cashier_eventfd_create()
        guard epoll >= 0, wakeup >= 0, cashier_epoll_watch(epoll, wakeup, 1, 1, 0) == 0 else {
            fatalError("no epoll or eventfd for libcurl's transfers: \(String(cString: strerror(errno)))")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()  // the loops live as long as the process
        guard cashier_curl_multi_set_callbacks(multi, Self.socketCallback, Self.timerCallback, context) == CURLM_OK else {
            fatalError("libcurl refused the multi handle's callbacks")
        }
        guard cashier_curl_multi_set_max_connects(multi, Self.maximumOpenConnections) == CURLM_OK else {
            fatalError("libcurl refused the multi handle's connection limit")
        }
        let thread = Thread { [self] in run() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs `transfer` on this loop; its `done` is called once, with libcurl's result.
    func start(_ transfer: Transfer) {
        incoming.withLock { $0.append(transfer) }
        cashier_eventfd_signal(wakeup)
    }

    private static let socketCallback: cashier_curl_socket_callback = { _, socket, what, context, _ in
        guard let context else { return -1 }
        Unmanaged<CurlMultiLoop>.fromOpaque(context).takeUnretainedValue().watch(socket, what)
        return 0
    }

    private static let timerCallback: cashier_curl_timer_callback = { _, milliseconds, context in
        guard let context else { return -1 }
        let loop = Unmanaged<CurlMultiLoop>.fromOpaque(context).takeUnretainedValue()
        loop.timer = milliseconds < 0 ? nil : ContinuousClock.now.advanced(by: .milliseconds(milliseconds))
        return 0
    }

    /// libcurl's wish for `socket`: watch it for reading and/or writing, or no longer.
    private func watch(_ socket: Int32, _ what: Int32) {
        if what == CURL_POLL_REMOVE {
            if watched.remove(socket) != nil { _ = cashier_epoll_watch(epoll, socket, -1, 0, 0) }
            return
        }
        let added = watched.insert(socket).inserted
        _ = cashier_epoll_watch(
            epoll, socket, added ? 1 : 0, what & CURL_POLL_IN != 0 ? 1 : 0, what & CURL_POLL_OUT != 0 ? 1 : 0)
    }

    private func run() {
        Thread.current.name = "cashier-curl"
        var sockets = [Int32](repeating: 0, count: 64)
        var readiness = [Int32](repeating: 0, count: 64)
        var stillRunning: Int32 = 0
        while true {
            var wait: Int32 = -1
            if let timer {
                let left = ContinuousClock.now.duration(to: timer).components
                wait = left.seconds < 0 ? 0 : Int32(min(1_000, left.seconds * 1_000 + left.attoseconds / 1_000_000_000_000_000 + 1))
            }
            let count = cashier_epoll_wait(epoll, &sockets, &readiness, Int32(sockets.count), wait)
            for index in 0..<max(0, Int(count)) {
                if sockets[index] == wakeup {
                    cashier_eventfd_drain(wakeup)
                    addArrived()
                } else {
                    curl_multi_socket_action(multi, sockets[index], readiness[index], &stillRunning)
                }
            }
            if let timer, ContinuousClock.now >= timer {
                self.timer = nil
                curl_multi_socket_action(multi, -1, 0, &stillRunning)  // CURL_SOCKET_TIMEOUT
            }
            finishDone()
        }
    }

    /// Adds the transfers other threads queued (libcurl then asks for a timer at once, which
    /// starts them in this same turn of the loop).
    private func addArrived() {
        let arrived = incoming.withLock { queue in
            defer { queue = [] }
            return queue
        }
        for transfer in arrived {
            if curl_multi_add_handle(multi, transfer.handle) == CURLM_OK {
                running[transfer.handle] = transfer
            } else {
                transfer.done(CURLE_FAILED_INIT)
            }
        }
    }

    private func finishDone() {
        var left: Int32 = 0
        var handle: UnsafeMutableRawPointer?
        var result = CURLE_OK
        while let message = curl_multi_info_read(multi, &left) {
            guard cashier_curl_message_done(message, &handle, &result) == 1, let handle else { continue }
            curl_multi_remove_handle(multi, handle)
            running.removeValue(forKey: handle)?.done(result)
        }
    }
}
