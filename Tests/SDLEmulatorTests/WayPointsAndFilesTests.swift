import Foundation
import Testing
import SmartDeviceLink
@testable import SDLEmulator

/// Requests core 8.2 serves with sdl_hmi that the recorded suite checks once: here what follows
/// from them (notifications, state, bytes).
@Suite("Waypoints, GetFile, SubtleAlert, CloseApplication")
struct WayPointsAndFilesTests {
    @Test("a subscriber hears the driver's new route; a location an app sends joins the waypoints; unsubscribed, nothing")
    func wayPoints() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("GetWayPoints", ["wayPointType": "ALL"])["wayPoints"]?.arrayValue?.count == 4, "sdl_hmi's placeholders")
        _ = try await app.request("SendLocation", ["latitudeDegrees": 42.33, "longitudeDegrees": -83.05, "locationName": "Detroit"])
        let points = try await app.request("GetWayPoints", ["wayPointType": "ALL"])["wayPoints"]?.arrayValue
        #expect(points?.last == ["coordinate": ["latitudeDegrees": 42.33, "longitudeDegrees": -83.05], "locationName": "Detroit"])

        #expect(try await app.request("SubscribeWayPoints").resultCode == "SUCCESS")
        _ = try await app.next("OnHashChange")
        let route: [JSONObject] = [["locationName": "Home", "coordinate": ["latitudeDegrees": 1, "longitudeDegrees": 2]]]
        #expect(await headUnit.control(["action": "setWayPoints", "wayPoints": .array(route.map(JSONValue.object))])["ok"] == true)
        #expect(try await app.next("OnWayPointChange")["wayPoints"] == .array(route.map(JSONValue.object)))
        #expect(try await app.request("UnsubscribeWayPoints").resultCode == "SUCCESS")
        await headUnit.setWayPoints([])
        try await app.sync()
        #expect(await app.inbox.take("OnWayPointChange").isEmpty)
        await headUnit.stop()
    }

    @Test("GetFile gives back the stored bytes, a part of them by offset and length, with their CRC-32")
    func getFile() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let bytes = (0..<100).map { UInt8($0) }
        _ = try await app.request("PutFile", ["syncFileName": "data.bin", "fileType": "BINARY"], bulkData: bytes)
        let whole = try await app.request("GetFile", ["fileName": "data.bin"])
        #expect(whole.bulkData == bytes && whole["crc"]?.intValue == Int64(CRC32.checksum(bytes)) && whole["info"] == "File uploaded")
        let part = try await app.request("GetFile", ["fileName": "data.bin", "offset": 10, "length": 20])
        #expect(part.bulkData == Array(bytes[10..<30]) && part["offset"] == 10 && part["length"] == 20)
        let missing = try await app.request("GetFile", ["fileName": "nothing.bin"])
        #expect(missing.resultCode == "FILE_NOT_FOUND" && missing["info"] == "File does not exist")
        await headUnit.stop()
    }

    @Test("SubtleAlert shows as an alert until its duration ends; CloseApplication takes the app off the screen, then to NONE")
    func subtleAlertAndClose() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        async let alert = app.request("SubtleAlert", ["alertText1": "Hello", "duration": 3000])
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "ALERT")
        #expect(try await alert.resultCode == "SUCCESS")
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "MAIN")
        #expect(try await app.request("CloseApplication").resultCode == "SUCCESS")
        #expect(try await app.next("OnHMIStatus")["hmiLevel"] == "BACKGROUND")
        #expect(try await app.next("OnHMIStatus")["hmiLevel"] == "NONE")
        await headUnit.stop()
    }

    @Test("a subtle alert with buttons nobody presses ends ABORTED after sdl_hmi's 10 s; a tap on none shown is the driver's mistake")
    func subtleAlertWithButtons() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(await headUnit.control(["action": "pressSubtleAlert"])["ok"] == false)
        let buttons: JSONValue = [["type": "TEXT", "text": "OK", "softButtonID": 5, "isHighlighted": false, "systemAction": "DEFAULT_ACTION"]]
        let alert = try await app.request("SubtleAlert", ["alertText1": "Hello", "duration": 3000, "softButtons": buttons])
        #expect(alert.resultCode == "ABORTED", "the duration is not sent with buttons; sdl_hmi's own 10 s end it")
        await headUnit.stop()
    }

    @Test("the HMI asks for a submenu's cells and for a file again: OnUpdateSubMenu, OnUpdateFile without the path; not in NONE")
    func hmiRequests() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(await headUnit.control(["action": "updateSubMenu", "menuID": 7, "updateSubCells": true])["ok"] == true)
        #expect(try await app.next("OnUpdateSubMenu").parameters == ["menuID": 7, "updateSubCells": true])
        #expect(await headUnit.control(["action": "updateFile", "fileName": "/var/sdl/icons/cover.png"])["ok"] == true)
        #expect(try await app.next("OnUpdateFile").parameters == ["fileName": "cover.png"])
        try await headUnit.exitApp()
        _ = try await app.next("OnHMIStatus")
        #expect(await headUnit.control(["action": "updateSubMenu", "menuID": 7])["ok"] == true)
        try await app.sync()
        #expect(await app.inbox.take("OnUpdateSubMenu").isEmpty, "the policy gives it only in BACKGROUND, FULL and LIMITED")
        await headUnit.stop()
    }
}
