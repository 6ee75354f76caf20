public import SmartDeviceLink

/// Waypoints as sdl_core 8.2 serves them with sdl_hmi as its navigation (measured): the route's
/// points read from the HMI, a subscription per app (IGNORED, without a word, the second time),
/// and OnWayPointChange to the subscribers when the driver's route changes.
extension HeadUnitEmulator {
    func getWayPoints(_ request: IncomingRequest) {
        respond(request, "SUCCESS", ["wayPoints": .array(wayPoints.map(JSONValue.object))])
    }

    func subscribeWayPoints(_ request: IncomingRequest, subscribe: Bool) {
        guard apps[request.key]?.wayPointsSubscribed != subscribe else { return respond(request, "IGNORED") }
        apps[request.key]?.wayPointsSubscribed = subscribe
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// sdl_hmi adds each location an app sends to its waypoints (NavigationController.sendLocation),
    /// as LocationDetails made from the SendLocation's parameters.
    static func wayPoint(of sent: JSONObject) -> JSONObject {
        var point: JSONObject = [:]
        if let latitude = sent["latitudeDegrees"], let longitude = sent["longitudeDegrees"] {
            point["coordinate"] = ["latitudeDegrees": latitude, "longitudeDegrees": longitude]
        }
        for key in ["locationName", "addressLines", "locationDescription", "phoneNumber", "locationImage"] { point[key] = sent[key] }
        point["searchAddress"] = sent["address"]
        return point
    }

    /// The driver sets a new route: the subscribed apps get OnWayPointChange with its points.
    public func setWayPoints(_ points: [JSONObject]) {
        wayPoints = points
        notifySubscribers("OnWayPointChange", ["wayPoints": .array(points.map(JSONValue.object))]) { $0.wayPointsSubscribed }
    }
}
