import Dispatch
public import FoleyScene
import Foundation

/// Waits until `condition` holds, looking again every couple of milliseconds, for at most
/// `timeout` seconds (generous: a loaded CI machine may be slow, and nothing is asserted about
/// how long it took). Returns whether the condition came true.
@discardableResult
public func waitUntil(timeout: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
  let pause = DispatchSemaphore(value: 0)
  while try !condition() {
    if DispatchTime.now().uptimeNanoseconds > deadline { return false }
    _ = pause.wait(timeout: .now() + .milliseconds(2))
  }
  return true
}

/// Waits until `condition` holds while stepping `scene` with the time that really passed, as a
/// game loop would (actions finish when their sounds do, whatever the machine's speed).
@MainActor
@discardableResult
public func waitUntil(stepping scene: Scene, timeout: Double = 20, _ condition: () -> Bool) -> Bool {
  var largestStep = 0.0
  return waitUntil(stepping: scene, timeout: timeout, largestStep: &largestStep, condition)
}

/// ``waitUntil(stepping:timeout:_:)``, keeping in `largestStep` the longest update it made, in
/// seconds: what a check that depends on how far one update moves something must allow for on a
/// loaded machine.
@MainActor
@discardableResult
public func waitUntil(
  stepping scene: Scene, timeout: Double = 20, largestStep: inout Double, _ condition: () -> Bool
) -> Bool {
  var last = DispatchTime.now().uptimeNanoseconds
  var largest = largestStep
  defer { largestStep = largest }
  return waitUntil(timeout: timeout) {
    let now = DispatchTime.now().uptimeNanoseconds
    let step = Double(now - last) / 1e9
    largest = max(largest, step)
    scene.update(deltaTime: step)
    last = now
    return condition()
  }
}
