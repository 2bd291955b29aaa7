// sightline capture: Vercel AI SDK runner (written by its calibration).
console.log(JSON.stringify({run_error: "the Vercel AI runner is not written yet"}));
