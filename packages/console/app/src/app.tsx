import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from './api.ts';
import { may } from './permissions.ts';
import { Link, navigate, useRoute } from './router.tsx';
import { loadSession, saveSession, type Session } from './session.ts';
import { SignIn } from './pages/sign-in.tsx';
import { Models } from './pages/models.tsx';
import { Deployments } from './pages/deployments.tsx';
import { Shapes } from './pages/shapes.tsx';
import { Datasets } from './pages/datasets.tsx';
import { BatchJobs } from './pages/batch-jobs.tsx';
import { FineTuningJobs } from './pages/fine-tuning-jobs.tsx';
import { Users } from './pages/users.tsx';
import { Playground } from './pages/playground.tsx';

export interface PageProps {
  readonly api: Api;
  readonly session: Session;
  /** The route below the page's own segment (e.g. a model id). */
  readonly rest: string;
}

interface Section {
  readonly route: string;
  readonly title: string;
  readonly page: (props: PageProps) => preact.JSX.Element;
  /** Shown when the role may list this collection. */
  readonly collection?: string;
}

const sections: readonly Section[] = [
  { route: 'models', title: 'Models', page: Models, collection: 'models' },
  { route: 'deployments', title: 'Deployments', page: Deployments, collection: 'deployments' },
  { route: 'shapes', title: 'Deployment shapes', page: Shapes, collection: 'deploymentShapes' },
  { route: 'datasets', title: 'Datasets', page: Datasets, collection: 'datasets' },
  { route: 'batch', title: 'Batch jobs', page: BatchJobs, collection: 'batchInferenceJobs' },
  { route: 'fine-tuning', title: 'Fine-tuning jobs', page: FineTuningJobs, collection: 'reinforcementFineTuningJobs' },
  { route: 'users', title: 'Users and API keys', page: Users, collection: 'users' },
  { route: 'playground', title: 'Playground', page: Playground },
];

export function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const route = useRoute();
  const api = useMemo(() => (session ? new Api(session) : undefined), [session]);
  const visible = sections.filter((section) => !session || !section.collection || may(session.role, section.collection, 'list'));
  const [segment = '', ...restParts] = route.split('/');
  const section = visible.find((candidate) => candidate.route === segment);

  useEffect(() => {
    if (session && !section) navigate(visible[0]!.route);
  }, [session, section]);
  // Focus the new page's heading after in-app navigation, so screen readers and keyboards start there.
  useEffect(() => {
    if (session && section) document.getElementById('page-title')?.focus({ preventScroll: true });
    document.title = section ? `${section.title} · Berth console` : 'Berth console';
  }, [segment]);

  const signOut = () => {
    saveSession(undefined);
    setSession(undefined);
  };
  const signedIn = (next: Session) => {
    saveSession(next);
    setSession(next);
  };

  return (
    <>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar" role="banner">
        <span class="brand">Berth console</span>
        {session ? (
          <span class="who">
            <span>
              {session.accountId} · <span class="role">{session.role}</span>
            </span>
            <button type="button" class="link-button" onClick={signOut}>Sign out</button>
          </span>
        ) : null}
      </header>
      <div class={session ? 'layout signed-in' : 'layout'}>
        {session ? (
          <nav aria-label="Console sections" class="sidebar">
            <ul>
              {visible.map((item) => (
                <li key={item.route}>
                  <Link to={item.route} current={item === section}>{item.title}</Link>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        <main id="main" tabIndex={-1}>
          {!session || !api ? (
            <SignIn onSignedIn={signedIn} />
          ) : section ? (
            <section.page api={api} session={session} rest={restParts.join('/')} />
          ) : null}
        </main>
      </div>
    </>
  );
}
