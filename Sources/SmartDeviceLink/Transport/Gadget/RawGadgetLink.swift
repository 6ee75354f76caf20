#if canImport(Glibc)
import Glibc
#endif

/// The gadget's bulk endpoints with nothing of the transport over them: for a benchmark's
/// raw baseline, which reads and writes them itself to show what the link alone costs.
///
/// The gadget is made and bound exactly as ``USBGadgetTransport/open()`` makes it (the same
/// descriptors, the same identity, the same handshake); the reader thread, write queue and
/// ep0 watcher are left out. Not for apps: nothing watches ep0 once it is open.
@_spi(RawLinks)
public struct RawGadgetLink: Sendable {
    /// Bulk IN: what is written here reaches the host.
    public let bulkIn: Int32
    /// Bulk OUT: what the host sends is read here.
    public let bulkOut: Int32
    /// The USB device controller the gadget is bound to.
    public let controller: String
    private let ep0: Int32
    private let paths: USBGadgetPaths

    /// Makes and binds the gadget and blocks until the host enables its bulk endpoints, at
    /// most `options.waitForHost`.
    public static func open(_ options: USBGadgetTransport.Options = .init()) throws(TransportError) -> RawGadgetLink {
        let link = try GadgetHandshake(options: options, endpoints: FunctionFSMount(paths: options.paths), wake: -1).run()
        return RawGadgetLink(bulkIn: link.bulkIn, bulkOut: link.bulkOut, controller: link.udc, ep0: link.ep0, paths: options.paths)
    }

    /// Unbinds the gadget (the host sees it unplugged) and closes its files. A read or write
    /// blocked on an endpoint ends with ESHUTDOWN.
    public func close() {
        GadgetConfigFS(paths: paths).unbind()
        for fd in [bulkIn, bulkOut, ep0] { _ = Glibc.close(fd) }
    }
}
