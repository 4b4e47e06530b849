/** Calibration of capability modules on the base policy: mean reward and all-0 / all-1 group fractions. */
export { calibrateModule, DEFAULT_CALIBRATION_TARGETS, formatCalibrationReport, summarizeCalibration, type CalibrationOptions, type CalibrationReport, type CalibrationTargets } from "./calibrate-module.js";
