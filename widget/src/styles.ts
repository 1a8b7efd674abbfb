/** Scoped to the widget's shadow root: nothing leaks into the host page and the host's CSS does not leak in. */
export const CSS = `
:host{all:initial}
*{box-sizing:border-box}
.ss-root{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a}
.ss-overlay{position:fixed;inset:0;z-index:2147483000;background:rgba(16,18,24,.62);display:flex;align-items:center;justify-content:center;padding:16px}
.ss-embed{position:relative;width:100%}
.ss-panel{background:#fff;border-radius:14px;width:100%;max-width:460px;max-height:100%;overflow:auto;box-shadow:0 12px 40px rgba(0,0,0,.28);display:flex;flex-direction:column}
.ss-embed .ss-panel{max-width:none;box-shadow:0 0 0 1px #d6d9e0}
.ss-head{display:flex;align-items:center;gap:8px;padding:12px 14px;border-bottom:1px solid #e4e6eb}
.ss-brand{font-weight:600;font-size:15px;flex:1}
.ss-badge{background:#b3261e;color:#fff;font-weight:700;font-size:12px;letter-spacing:.08em;padding:3px 8px;border-radius:6px}
.ss-close{background:none;border:0;font-size:24px;line-height:1;width:40px;height:40px;border-radius:8px;cursor:pointer;color:#333}
.ss-body{padding:18px 18px 22px;display:flex;flex-direction:column;gap:14px}
h2{font-size:20px;margin:0;outline:none}
p{margin:0}
.ss-muted{color:#4a4f59;font-size:14px}
.ss-note{background:#fff4e5;color:#5c3500;border-radius:8px;padding:8px 10px;font-size:14px}
.ss-btn{appearance:none;border:0;border-radius:10px;padding:13px 16px;font:600 16px/1.2 inherit;font-family:inherit;cursor:pointer;background:#0b57d0;color:#fff;width:100%;min-height:48px}
.ss-btn[disabled]{background:#9aa3b2;cursor:not-allowed}
.ss-btn.ss-secondary{background:#eef1f6;color:#0b3d91}
.ss-row{display:flex;flex-direction:column;gap:10px}
button:focus-visible,input:focus-visible,label:focus-within{outline:3px solid #f2a900;outline-offset:2px}
.ss-choice{display:flex;align-items:center;gap:10px;border:1px solid #c9ced8;border-radius:10px;padding:12px;cursor:pointer;min-height:48px}
.ss-choice input{width:20px;height:20px;margin:0;flex:none}
.ss-check{display:flex;gap:10px;align-items:flex-start;font-size:15px}
.ss-check input{width:22px;height:22px;margin:1px 0 0;flex:none}
.ss-stage{position:relative;background:#111;border-radius:12px;overflow:hidden;aspect-ratio:4/3;width:100%}
.ss-stage video,.ss-stage img{width:100%;height:100%;object-fit:cover;display:block}
.ss-mirror{transform:scaleX(-1)}
.ss-oval{position:absolute;left:50%;top:50%;width:58%;height:86%;transform:translate(-50%,-50%);border:4px solid rgba(255,255,255,.9);border-radius:50%;box-shadow:0 0 0 999px rgba(0,0,0,.38)}
.ss-oval.ss-good{border-color:#27c26c}
.ss-frame{position:absolute;inset:9% 6%;border:3px dashed rgba(255,255,255,.9);border-radius:12px}
.ss-guide{font-weight:600;text-align:center;min-height:1.5em}
.ss-challenge{font-size:19px;font-weight:700;text-align:center;color:#0b3d91}
.ss-bar{height:12px;background:#e4e6eb;border-radius:6px;overflow:hidden}
.ss-bar>div{height:100%;background:#0b57d0;width:0;transition:width .15s}
.ss-spin{width:44px;height:44px;border:5px solid #d6dbe6;border-top-color:#0b57d0;border-radius:50%;margin:8px auto;animation:ss-r 1s linear infinite}
@keyframes ss-r{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.ss-spin{animation-duration:3s}.ss-bar>div{transition:none}}
.ss-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.ss-file{position:absolute;width:1px;height:1px;opacity:0}
@media (max-width:520px){
 .ss-overlay{padding:0}
 .ss-overlay .ss-panel{max-width:none;height:100%;border-radius:0}
 .ss-body{padding:14px}
}
`
