/**
 * `NamesDirectory`: the one place the web app reads the person's workspaces
 * and their members' names, for every view that names them (the inbox, a
 * transcript's authors, New task, People). Framework-free, like the read
 * model: views subscribe and say what they want read.
 *
 * What is read stays until the person's access changes (`refresh`, on the
 * events socket's `access_changed`, or after a change made on People): then
 * everything read so far is read again, so names follow without a reload.
 * Others joining a workspace reach no socket; a member list is read again
 * when a view asks for an author it does not name and no read was made for
 * yet, once per such author (`authorsToRead`). A reply older than the last
 * read asked for is dropped; a failed read keeps what was read before.
 */
import type { WorkspaceView } from '../../../src/wire/index.js';
import type { ApiFailure, ApiResult } from './api.js';
import type { WorkspaceMember } from './members-api.js';
import { authorsToRead } from './message-author.js';

export interface MemberList {
  /** User ID → name. */
  readonly names: ReadonlyMap<string, string>;
  /** Every author a read was made for; one it did not name is not read for again. */
  readonly askedFor: ReadonlySet<string>;
  /** A read is under way. */
  readonly reading: boolean;
}

export interface NamesState {
  /** Undefined until first read. */
  readonly workspaces: readonly WorkspaceView[] | undefined;
  /** Why the last read of the workspaces failed: a page says it in its own language. */
  readonly workspacesError: ApiFailure | undefined;
  readonly members: ReadonlyMap<string, MemberList>;
}

export interface NamesReads {
  workspaces(): Promise<ApiResult<{ workspaces: WorkspaceView[] }>>;
  members(workspaceId: string): Promise<ApiResult<{ members: WorkspaceMember[] }>>;
}

const NO_NAMES: ReadonlyMap<string, string> = new Map();

export class NamesDirectory {
  private state: NamesState = {
    workspaces: undefined,
    workspacesError: undefined,
    members: new Map(),
  };
  private readonly listeners = new Set<() => void>();
  private workspacesWanted = false;
  private workspacesRead = 0;
  /** The latest read per workspace, and the authors asked for while it was under way. */
  private readonly memberReads = new Map<string, { serial: number; owed: Set<string> }>();
  private serial = 0;

  constructor(private readonly reads: NamesReads) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getState = (): NamesState => this.state;

  /** Reads the person's workspaces, unless they were read or are being read. */
  wantWorkspaces(): void {
    if (this.workspacesWanted) return;
    this.workspacesWanted = true;
    void this.readWorkspaces();
  }

  /** Reads a workspace's members unless read, and again for authors no read was made for. */
  wantMembers(workspaceId: string, authorIds: readonly string[] = []): void {
    const list = this.state.members.get(workspaceId);
    if (list === undefined) {
      void this.readMembers(workspaceId, authorIds);
      return;
    }
    const owed = authorsToRead(list, authorIds);
    if (owed.length === 0) return;
    const under = this.memberReads.get(workspaceId);
    if (list.reading && under !== undefined) {
      for (const id of owed) under.owed.add(id);
      return;
    }
    void this.readMembers(workspaceId, owed);
  }

  /** The person's access changed: everything read so far is read again. */
  refresh(): void {
    if (this.workspacesWanted) void this.readWorkspaces();
    for (const workspaceId of this.state.members.keys()) void this.readMembers(workspaceId, []);
  }

  private async readWorkspaces(): Promise<void> {
    const serial = ++this.workspacesRead;
    const result = await this.reads.workspaces();
    if (serial !== this.workspacesRead) return;
    this.set({
      workspaces: result.ok ? result.value.workspaces : this.state.workspaces,
      workspacesError: result.ok ? undefined : result,
    });
  }

  private async readMembers(workspaceId: string, askedNow: readonly string[]): Promise<void> {
    const serial = ++this.serial;
    const read = { serial, owed: new Set<string>() };
    this.memberReads.set(workspaceId, read);
    const before = this.state.members.get(workspaceId);
    this.setMembers(workspaceId, {
      names: before?.names ?? NO_NAMES,
      askedFor: before?.askedFor ?? new Set(),
      reading: true,
    });
    const result = await this.reads.members(workspaceId);
    if (this.memberReads.get(workspaceId)?.serial !== serial) return;
    const previous = this.state.members.get(workspaceId);
    const list: MemberList = {
      names: result.ok
        ? new Map(result.value.members.map((member) => [member.user_id, member.user_name]))
        : (previous?.names ?? NO_NAMES),
      askedFor: new Set([...(previous?.askedFor ?? []), ...askedNow]),
      reading: false,
    };
    this.setMembers(workspaceId, list);
    // Authors asked for while this read was under way may have joined after it was answered.
    const owed = authorsToRead(list, [...read.owed]);
    if (owed.length > 0) void this.readMembers(workspaceId, owed);
  }

  private setMembers(workspaceId: string, list: MemberList): void {
    const members = new Map(this.state.members);
    members.set(workspaceId, list);
    this.set({ members });
  }

  private set(change: Partial<NamesState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of [...this.listeners]) listener();
  }
}
