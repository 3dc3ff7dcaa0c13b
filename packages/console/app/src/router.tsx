import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The console's path below its base (`models`, `models/llama`, …), read from the location. */
function currentRoute(): string {
  const base = new URL(document.baseURI).pathname;
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : '';
  return decodeURIComponent(path.replace(/\/+$/, ''));
}

const listeners = new Set<() => void>();

export function navigate(route: string): void {
  history.pushState(null, '', new URL(route, document.baseURI).pathname);
  for (const listener of listeners) listener();
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A link inside the console: a real `<a href>` (open in a new tab works), navigated in place on a plain click. */
export function Link(props: { to: string; children: ComponentChildren; current?: boolean; class?: string }) {
  const href = new URL(props.to, document.baseURI).pathname;
  return (
    <a
      href={href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
